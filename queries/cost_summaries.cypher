// CostSummaries: the packed cost summaries of a report's sessions: one session ($session_id ≠
// 0, which wins), with $descendants that session and every session it spawned, or (with
// $descendants and an $agent_root) every session of the agent root and every session those
// spawned. Spawning is over SPAWNED edges only (an uncle edge is seniority, not spend
// lineage), each session once. The report reads one byte string per session, whatever its
// days: the window is applied as they are unpacked.
// Params: $session_id (0: none), $agent_root, $descendants (bool).
// Returns: one row {summaries: [bytes]}.
CALL {
  // Each branch is guarded by a row, not a WHERE, as in spend_rows.
  UNWIND CASE WHEN $session_id <> 0 AND NOT $descendants THEN [true] ELSE [] END AS one
  MATCH (s:Session {id: $session_id})
  RETURN s
  UNION ALL
  UNWIND CASE WHEN $session_id <> 0 AND $descendants THEN [true] ELSE [] END AS tree
  // A session has one spawner, so its subtree reaches each session once.
  MATCH (:Session {id: $session_id})-[:SPAWNED*0..]->(s:Session)
  RETURN s
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND $descendants THEN [true] ELSE [] END AS trees
  // An agent root's sessions may spawn each other: a session in two of their subtrees is one.
  MATCH (top:Session {agent_root_key: $agent_root})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  RETURN DISTINCT s
}
MATCH (s)-[:COST_SUMMARY]->(c:CostSummary)
RETURN collect(c.packed) AS summaries
