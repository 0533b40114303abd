// CostSummaries: the packed cost summaries of a report's sessions: one session ($session_id ≠
// 0, which wins), with $descendants that session and every session it spawned, or (with
// $descendants and an $agent_root) every session of the agent root and every session those
// spawned. Spawning is over SPAWNED edges only (an uncle edge is seniority, not spend
// lineage), each session once. A summary with no day in the window [$from_day, $to_day) is
// not read (a long-lived hierarchy's old sessions); the others are read whole, one byte string
// per session, and the window is applied to their rows as they are unpacked.
// Params: $session_id (0: none), $agent_root, $descendants (bool), $from_day, $to_day (days
// since 1970).
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
WHERE c.last_day >= $from_day AND c.first_day < $to_day
RETURN collect(c.packed) AS summaries
