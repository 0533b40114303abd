// GetStatusSummary: the cached "where things stand" blurb of a session, if one was ever asked for.
// Params: $session_id.
// Returns: no row when none was, else one row {summary, error, state, generating, requested_at,
// generated_at, covered_bytes}.
MATCH (:Session {id: $session_id})-[:HAS_STATUS_SUMMARY]->(ss:StatusSummary)
RETURN ss.summary AS summary, ss.error AS error, ss.state AS state, coalesce(ss.generating, false) AS generating,
       ss.requested_at AS requested_at, ss.generated_at AS generated_at, coalesce(ss.covered_bytes, 0) AS covered_bytes
