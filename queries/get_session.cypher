// GetSession: a session by its id. A slug never reaches this statement: the edges resolve it to
// an id first (ResolveSessionSlug), so a slug made of digits can never stand in for an id.
// Params: $id (integer). Returns: zero or one row {s}.
MATCH (s:Session {id: $id})
RETURN s
