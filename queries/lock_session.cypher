// LockSession: take a session's write lock and read it, so a read-modify-write is atomic.
// Params: $id. Returns: zero or one row {s}.
MATCH (s:Session {id: $id})
SET s._lock = true
REMOVE s._lock
RETURN s
