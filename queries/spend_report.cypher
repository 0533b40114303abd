// SpendReport: the SpendDay summaries of a scope over whole days [$from_day, $to_day), for a
// cost report: summed per agent root, model and day, the number of sessions that spent, and
// the $top sessions that spent most at list price with their own summaries. Scope: a session
// ($session_id > 0, which wins), an agent root ($agent_root) or the fleet; with $descendants a
// scoped report also takes every session its sessions spawned, transitively over SPAWNED edges
// only (an uncle edge is seniority, not spend lineage), each session once.
// The ranking prices here so that only $top sessions travel: $rates maps a model to its
// per-token rates [input, output, cache_read, cache_write_5m, cache_write_1h] (a model not in
// it costs nothing but its web requests), $web is [per search, per fetch]. The caller prices
// what it receives itself; this order only picks the sessions, ties broken as the report
// breaks them (more tokens first, then the key "#id").
// Params: $from_day, $to_day (dates), $session_id (0: none), $agent_root ("": none),
// $descendants (bool), $rates (map), $web (list), $top (int).
// Returns: one row {groups: [[agent_root, model, day, n]], sessions, top: [[session_id,
// [[agent_root, model, day, n]]]]}, n as in SummarizeSpend.
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
  MATCH (top:Session {id: $session_id})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  WITH DISTINCT s
  MATCH (s)-[:SPENT]->(d:SpendDay)
  WHERE $from_day <= d.day < $to_day
  RETURN d
  UNION ALL
  UNWIND CASE WHEN $session_id = 0 AND $agent_root <> '' AND $descendants THEN [true] ELSE [] END AS trees
  MATCH (top:Session {agent_root_key: $agent_root})
  MATCH (top)-[:SPAWNED*0..]->(s:Session)
  WITH DISTINCT s
  MATCH (s)-[:SPENT]->(d:SpendDay)
  WHERE $from_day <= d.day < $to_day
  RETURN d
}
WITH d.session_id AS sid, d.agent_root AS root, d.model AS model, d.day AS day, d.n AS n
WITH sid, root, model, day, n, coalesce($rates[coalesce(model, '')], [0.0, 0.0, 0.0, 0.0, 0.0]) AS r
WITH sid, root, model, day, n,
     n[1] * r[0] + n[2] * r[1] + n[3] * r[2] + n[5] * r[3]
       + (n[6] + CASE WHEN n[4] > n[5] + n[6] THEN n[4] - n[5] - n[6] ELSE 0 END) * r[4]
       + n[7] * $web[0] + n[8] * $web[1] AS price
WITH sid, sum(price) AS price, sum(n[1] + n[2] + n[3] + n[4]) AS tokens, collect([root, model, day, n]) AS parts
ORDER BY price DESC, tokens DESC, '#' + toString(sid)
WITH collect([sid, parts]) AS ranked
CALL {
  WITH ranked
  UNWIND ranked AS session
  UNWIND session[1] AS part
  WITH part[0] AS root, part[1] AS model, part[2] AS day, part[3] AS n
  WITH root, model, day,
       [sum(n[0]), sum(n[1]), sum(n[2]), sum(n[3]), sum(n[4]), sum(n[5]), sum(n[6]), sum(n[7]), sum(n[8])] AS n
  RETURN collect([root, model, day, n]) AS groups
}
RETURN groups, size(ranked) AS sessions, ranked[0..$top] AS top
