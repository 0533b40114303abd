// LockSessionCounter: take the write lock on the session id sequence (the documented dummy-write
// idiom) so that creates serialise: the idempotency-key check and slug choice after it are atomic.
// Params: none. Returns: one row {value: the last id handed out}.
MATCH (c:Counter {name: 'session'})
SET c._lock = true
REMOVE c._lock
RETURN c.value AS value
