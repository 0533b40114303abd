// LockBacklog: serialise work-backlog writes, so ranks stay 1..n without gaps or repeats under
// concurrent appends, pulls and a human's edits. Params: none. Returns: one row {ok}.
MERGE (l:GraphLock {scope: 'backlog'})
SET l._lock = true
REMOVE l._lock
RETURN true AS ok
