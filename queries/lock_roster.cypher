// LockRoster: serialise roster edits, so "one Slack id belongs to one human" holds under
// concurrent edits. Params: none. Returns: one row {ok}.
MERGE (l:GraphLock {scope: 'roster'})
SET l._lock = true
REMOVE l._lock
RETURN true AS ok
