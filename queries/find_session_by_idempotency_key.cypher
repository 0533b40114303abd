// FindSessionByIdempotencyKey: the session a previous create with this key made.
// Params: $key. Returns: zero or one row {s: Session node}.
MATCH (s:Session {idempotency_key: $key})
RETURN s
