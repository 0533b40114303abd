// SaveStatusSummary: write a session's status-summary record (one per session, created on first
// write); a missing session writes nothing.
// Params: $session_id, $props (summary, error, state, generating, requested_at, generated_at,
// covered_bytes).
// Returns: one row {saved: bool}.
OPTIONAL MATCH (s:Session {id: $session_id})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END |
  MERGE (s)-[:HAS_STATUS_SUMMARY]->(ss:StatusSummary)
  SET ss += $props, ss.session_id = $session_id)
RETURN s IS NOT NULL AS saved
