// GetOutcomeAnalysis: a session's current outcome analysis. Params: $session_id.
// Returns: one row {a}.
MATCH (a:OutcomeAnalysis {session_id: $session_id})
WHERE a.superseded_at IS NULL
RETURN a
