// SpendRows: the SpendDay summaries of a report's scope over whole days [$from_day, $to_day),
// a row per session, agent root, model and day. Scope: a session ($session_id ≠ 0, which
// wins), an agent root ($agent_root) or the fleet; with $descendants a scoped report also takes
// every session its sessions spawned, transitively over SPAWNED edges only (an uncle edge is
// seniority, not spend lineage), each session once. The rows travel as one list in one record:
// thousands of records cost the client far more to decode than one list of the same values.
// Params: $from_day, $to_day (dates), $session_id (0: none), $agent_root ("": none),
// $descendants (bool).
// Returns: one row {rows: [[session_id, agent_root, model, day, n]]}, n as SummarizeSpend packs it.
CALL {
  // Each branch is guarded by a row, not a WHERE: the planner applies a parameter-only WHERE
  // after the branch's index seek, so every report would first read every other scope.
  UNWIND CASE WHEN $session_id = 0 AND $agent_root = '' THEN [true] ELSE [] END AS fleet
  MATCH (d:SpendDay)
  WHERE $from_day <= d.day < $to_day
  RETURN d
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND NOT $descendants THEN [true] ELSE [] END AS root
  MATCH (d:SpendDay {agent_root: $agent_root})
  WHERE $from_day <= d.day < $to_day
  RETURN d
  UNION ALL
  UNWIND CASE WHEN $session_id <> 0 AND NOT $descendants THEN [true] ELSE [] END AS one
  MATCH (d:SpendDay {session_id: $session_id})
  WHERE $from_day <= d.day < $to_day
  RETURN d
  UNION ALL
  UNWIND CASE WHEN $session_id <> 0 AND $descendants THEN [true] ELSE [] END AS tree
  // A session has one spawner, so its subtree reaches each session once.
  MATCH (top:Session {id: $session_id})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  MATCH (s)-[:SPENT]->(d:SpendDay)
  WHERE $from_day <= d.day < $to_day
  RETURN d
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND $descendants THEN [true] ELSE [] END AS trees
  // An agent root's sessions may spawn each other: a session in two of their subtrees is one.
  MATCH (top:Session {agent_root_key: $agent_root})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  WITH DISTINCT s
  MATCH (s)-[:SPENT]->(d:SpendDay)
  WHERE $from_day <= d.day < $to_day
  RETURN d
}
RETURN collect([d.session_id, d.agent_root, d.model, d.day, d.n]) AS rows
