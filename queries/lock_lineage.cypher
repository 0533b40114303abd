// LockLineage: take the one lineage write lock (the documented dummy-write idiom). Every
// transaction that adds a SPAWNED or UNCLE_OF edge takes it first, so reachability checks and the
// writes they guard are serialised: two concurrent writers can never each pass a check the other
// invalidates, which is what makes acyclicity exact under concurrency.
// Params: none. Returns: one row {ok}.
MERGE (l:GraphLock {scope: 'lineage'})
SET l._lock = true
REMOVE l._lock
RETURN true AS ok
