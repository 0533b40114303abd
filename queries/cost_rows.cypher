// CostRows: the token ledger over a window, summed per session, agent root, model and day —
// what every cost report prices. Scope: a session ($session_id > 0, which wins), an agent root
// ($agent_root) or the fleet. With $descendants a scoped report also takes every session its
// sessions spawned, transitively over SPAWNED edges only (an uncle edge is seniority, not
// spend lineage), each session once. $by_session false folds sessions together.
// Params: $from, $to (datetime, to exclusive), $session_id (0: none), $agent_root ("": none),
// $descendants, $by_session (bool).
// Returns: rows {session_id (null when folded), agent_root, model, day (date), calls,
// input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
// cache_creation_5m_tokens, cache_creation_1h_tokens, web_search_requests, web_fetch_requests}.
CALL {
  // Each branch is guarded by a row, not a WHERE: the planner applies a parameter-only WHERE
  // after the branch's index seek, so every report would first read the ledger of every other
  // scope (the whole window's, or every row with no agent root).
  UNWIND CASE WHEN $session_id = 0 AND $agent_root = '' THEN [true] ELSE [] END AS fleet
  MATCH (u:TokenUsage)
  WHERE $from <= u.called_at < $to
  RETURN u
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND NOT $descendants THEN [true] ELSE [] END AS root
  MATCH (u:TokenUsage {agent_root: $agent_root})
  WHERE $from <= u.called_at < $to
  RETURN u
  UNION ALL
  UNWIND CASE WHEN $session_id <> 0 AND NOT $descendants THEN [true] ELSE [] END AS one
  MATCH (u:TokenUsage {session_id: $session_id})
  WHERE $from <= u.called_at < $to
  RETURN u
  UNION ALL
  UNWIND CASE WHEN $session_id <> 0 AND $descendants THEN [true] ELSE [] END AS tree
  MATCH (top:Session {id: $session_id})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  WITH DISTINCT s
  MATCH (s)-[:USED_TOKENS]->(u:TokenUsage)
  WHERE $from <= u.called_at < $to
  RETURN u
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND $descendants THEN [true] ELSE [] END AS trees
  MATCH (top:Session {agent_root_key: $agent_root})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  WITH DISTINCT s
  MATCH (s)-[:USED_TOKENS]->(u:TokenUsage)
  WHERE $from <= u.called_at < $to
  RETURN u
}
RETURN CASE WHEN $by_session THEN u.session_id END AS session_id, u.agent_root AS agent_root, u.model AS model,
       date(u.called_at) AS day, count(*) AS calls,
       sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens,
       sum(u.cache_read_tokens) AS cache_read_tokens, sum(u.cache_creation_tokens) AS cache_creation_tokens,
       sum(u.cache_creation_5m_tokens) AS cache_creation_5m_tokens, sum(u.cache_creation_1h_tokens) AS cache_creation_1h_tokens,
       sum(u.web_search_requests) AS web_search_requests, sum(u.web_fetch_requests) AS web_fetch_requests
