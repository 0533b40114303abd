// TakenSlugs: which of the candidate slugs already belong to a session.
// Params: $candidates (list of slugs). Returns: one row per taken slug {slug}.
UNWIND $candidates AS candidate
MATCH (s:Session {slug: candidate})
RETURN s.slug AS slug
