// GetSession: a session by slug first, then by numeric id (the original's lookup order).
// Params: $slug (string), $id (integer or null). Returns: zero or one row {s}.
OPTIONAL MATCH (bySlug:Session {slug: $slug})
OPTIONAL MATCH (byID:Session {id: $id})
WITH coalesce(bySlug, byID) AS s
WHERE s IS NOT NULL
RETURN s
