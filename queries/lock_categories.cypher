// LockCategories: serialise category writes, so "names are unique, case-insensitively" and the
// positions hold under concurrent edits. Params: none. Returns: one row {ok}.
MERGE (l:GraphLock {scope: 'categories'})
SET l._lock = true
REMOVE l._lock
RETURN true AS ok
