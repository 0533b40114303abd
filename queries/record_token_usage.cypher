// RecordTokenUsage: upsert one ledger row per model request, keyed by request_id (unique), and
// attach it to its session. A row already stored keeps its first values, so re-reading the same
// transcript (a refresh, a recovered turn) counts nothing twice.
// Params: $session_id, $rows (list of maps: request_id, model, agent_runtime, agent_root,
// runtime_session_id, transcript_path, called_at, input_tokens, output_tokens,
// cache_read_tokens, cache_creation_tokens), $at (datetime). Returns: one row {recorded}.
MATCH (s:Session {id: $session_id})
UNWIND $rows AS r
MERGE (u:TokenUsage {request_id: r.request_id})
ON CREATE SET u += r, u.session_id = $session_id, u.recorded_at = $at
MERGE (s)-[:USED_TOKENS]->(u)
RETURN count(u) AS recorded
