// ReplaceSession: overwrite every property of a session with $props (absent keys become null),
// except its cost summary, which the store derives from the session's spend (see
// write_cost_summaries), never its writer.
// Params: $id, $props. Returns: one row {s}.
MATCH (s:Session {id: $id})
WITH s, [s.cost_summary, s.cost_first_day, s.cost_last_day] AS cost
SET s = $props
SET s.cost_summary = cost[0], s.cost_first_day = cost[1], s.cost_last_day = cost[2]
RETURN s
