// ResolveSessionSlug: the id of the session with this slug.
// Params: $slug (string). Returns: zero or one row {id}.
MATCH (s:Session {slug: $slug})
RETURN s.id AS id
