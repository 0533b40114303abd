// RecordTokenUsage: upsert one ledger row per model request, keyed by request_id (unique), and
// attach it to its session. A row belongs to the session that first recorded it: another
// session reading the same request (a fork's copied transcript) neither links nor re-counts it.
// Re-reading a transcript counts nothing twice; it only fills in what an older row lacks — the
// request's own time (stamped) and the split cache writes and web counts.
// Params: $session_id, $rows (list of maps: request_id, model, agent_runtime, agent_root,
// runtime_session_id, transcript_path, service_tier, called_at, stamped, input_tokens,
// output_tokens, cache_read_tokens, cache_creation_tokens, cache_creation_5m_tokens,
// cache_creation_1h_tokens, web_search_requests, web_fetch_requests), $at (datetime).
// Returns: one row {recorded} (the rows this session owns among $rows) and {days}: the days
// its rows fall on, before and after a stamp moved one, whose summaries need re-summing.
// The session's lock (the SET) comes first: only the session's own writers change its rows,
// so each reads the days before a stamp moved them only after the last writer committed.
MATCH (s:Session {id: $session_id})
SET s.ledger_summed_at = $at
WITH s
UNWIND $rows AS r
OPTIONAL MATCH (was:TokenUsage {request_id: r.request_id, session_id: $session_id})
WITH s, r, date(was.called_at) AS before
MERGE (u:TokenUsage {request_id: r.request_id})
ON CREATE SET u += r, u.session_id = $session_id, u.recorded_at = $at
ON MATCH SET u += CASE WHEN u.session_id = $session_id AND r.stamped AND NOT coalesce(u.stamped, false) THEN r ELSE {} END
WITH s, u, before
WHERE u.session_id = $session_id
MERGE (s)-[:USED_TOKENS]->(u)
RETURN count(u) AS recorded, collect(DISTINCT before) + collect(DISTINCT date(u.called_at)) AS days
