// LineageGuard: decide, exactly and safely under concurrent writers, whether the edge
// $senior → $junior would close a cycle (the junior already reaches the senior), and when it
// would not and $create is set, record it as an uncle edge. The caller's transaction holds
// both sessions' locks. Instead of one lineage-wide lock it locks only what a cycle through the
// new edge could touch: the sessions below the junior (down) or those above the senior (up),
// whichever side is exhausted first and smaller, each searched breadth-first, visiting each
// session once, at most $limit + 1 of them. It marks every session of that side (the write
// takes its lock), then searches again: the side is settled when the search finds no session
// outside the marked ones. A settled side is closed under edges out of it (down) or into it
// (up), and every edge writer locks both its ends, so no edge that could extend a path from
// the junior to the senior can be added until this transaction commits (the proof is in
// graph/lineage.go). Not settled (neither side within $limit, or the side grew between the
// searches): the caller runs it again with a larger $limit, the locks taken so far held.
// Params: $senior, $junior (existing session ids), $limit, $create, $source, $at.
// Returns: one row {reaches (true: the edge would close a cycle), settled, created}.
MATCH (a:Session {id: $senior}), (b:Session {id: $junior})
WITH a, b,
     COLLECT { MATCH (b)-[:SPAWNED|UNCLE_OF*0..]->(d:Session) RETURN DISTINCT d LIMIT $limit + 1 } AS down,
     COLLECT { MATCH (a)<-[:SPAWNED|UNCLE_OF*0..]-(u:Session) RETURN DISTINCT u LIMIT $limit + 1 } AS up
WITH a, b, a IN down OR b IN up AS reaches,
     size(down) <= $limit AS downDone, size(up) <= $limit AS upDone, down, up
WITH a, b, reaches,
     CASE WHEN reaches THEN null
       WHEN downDone AND (NOT upDone OR size(down) <= size(up)) THEN 'down'
       WHEN upDone THEN 'up' END AS side, down, up
WITH a, b, reaches, side, CASE side WHEN 'down' THEN down WHEN 'up' THEN up ELSE [] END AS scope
CALL (scope) {
  UNWIND scope AS n
  WITH n ORDER BY n.id
  SET n._guard = true
}
OPTIONAL CALL (b, side) {
  WITH b WHERE side = 'down'
  MATCH (b)-[:SPAWNED|UNCLE_OF*0..]->(d:Session)
  WHERE d._guard IS NULL
  RETURN true AS escaped LIMIT 1
}
OPTIONAL CALL (a, side) {
  WITH a WHERE side = 'up'
  MATCH (a)<-[:SPAWNED|UNCLE_OF*0..]-(u:Session)
  WHERE u._guard IS NULL
  RETURN true AS escapedUp LIMIT 1
}
CALL (scope) {
  UNWIND scope AS n
  REMOVE n._guard
}
WITH a, b, reaches, reaches OR (side IS NOT NULL AND escaped IS NULL AND escapedUp IS NULL) AS settled
OPTIONAL CALL (a, b, reaches, settled) {
  WITH a, b WHERE $create AND settled AND NOT reaches
  MERGE (a)-[e:UNCLE_OF]->(b)
  ON CREATE SET e.source = $source, e.created_at = $at
  RETURN true AS created
}
RETURN reaches, settled, coalesce(created, false) AS created
