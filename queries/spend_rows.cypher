// SpendRows: the SpendDay summaries of a fleet or agent-root report over whole days
// [$from_day, $to_day), a row per session, agent root, model and day; an agent root's are the
// rows its requests were recorded under. (Reports over sessions read their cost summaries:
// cost_summaries.) The rows travel as one list in one record: thousands of records cost the
// client far more to decode than one list of the same values.
// Params: $from_day, $to_day (dates), $agent_root ("": the fleet).
// Returns: one row {rows: [[session_id, agent_root, model, day, n]]}, n as SummarizeSpend packs it.
CALL {
  // Each branch is guarded by a row, not a WHERE: the planner applies a parameter-only WHERE
  // after the branch's index seek, so every report would first read every other scope.
  UNWIND CASE WHEN $agent_root = '' THEN [true] ELSE [] END AS fleet
  MATCH (d:SpendDay)
  WHERE $from_day <= d.day < $to_day
  RETURN d
  UNION ALL
  UNWIND CASE WHEN $agent_root <> '' THEN [true] ELSE [] END AS root
  MATCH (d:SpendDay {agent_root: $agent_root})
  WHERE $from_day <= d.day < $to_day
  RETURN d
}
RETURN collect([d.session_id, d.agent_root, d.model, d.day, d.n]) AS rows
