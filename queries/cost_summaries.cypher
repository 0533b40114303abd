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
  // The session, alone or atop its subtree.
  UNWIND CASE WHEN $session_id <> 0 THEN [true] ELSE [] END AS one
  MATCH (s:Session {id: $session_id})
  RETURN s
  UNION ALL
  // Below it, each session is the child of the top or of a spawner under it: only :Spawner
  // sessions are expanded, never the leaves (most of a wide router's subtree). A session has
  // one spawner, so the subtree reaches each session once.
  UNWIND CASE WHEN $session_id <> 0 AND $descendants THEN [true] ELSE [] END AS tree
  MATCH (:Session {id: $session_id}) (()-[:SPAWNED]->(:Spawner)){0,} ()-[:SPAWNED]->(s)
  RETURN s
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND $descendants THEN [true] ELSE [] END AS trees
  // An agent root's sessions may spawn each other: a session in two of their subtrees is one.
  MATCH (top:Session {agent_root_key: $agent_root})
  CALL (top) {
    RETURN top AS s
    UNION ALL
    MATCH (top) (()-[:SPAWNED]->(:Spawner)){0,} ()-[:SPAWNED]->(s)
    RETURN s
  }
  RETURN DISTINCT s
}
WITH s
WHERE s.cost_last_day >= $from_day AND s.cost_first_day < $to_day
RETURN collect(s.cost_summary) AS summaries
