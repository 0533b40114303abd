// SessionExists: whether a session with this id exists.
// Params: $id. Returns: one row {exists: bool}.
OPTIONAL MATCH (s:Session {id: $id})
RETURN s IS NOT NULL AS exists
