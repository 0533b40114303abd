// ClassifyUncleEdge: everything the uncle-edge decision needs, in one round trip: whether both
// sessions exist, whether the senior already reaches the junior, whether the junior reaches the
// senior (the edge would close a cycle), and whether a direct junior → senior edge exists (to
// invert). Reachability is complete (bidirectional BFS, no budget). The caller holds the lineage
// lock and handles $senior = $junior.
// Params: $senior, $junior. Returns: one row {senior_exists, junior_exists, senior_reaches,
// junior_reaches, direct_reverse}.
OPTIONAL MATCH (a:Session {id: $senior})
OPTIONAL MATCH (b:Session {id: $junior})
OPTIONAL MATCH down = shortestPath((a)-[:SPAWNED|UNCLE_OF*]->(b))
OPTIONAL MATCH up = shortestPath((b)-[:SPAWNED|UNCLE_OF*]->(a))
RETURN a IS NOT NULL AS senior_exists, b IS NOT NULL AS junior_exists,
       down IS NOT NULL AS senior_reaches, up IS NOT NULL AS junior_reaches,
       a IS NOT NULL AND b IS NOT NULL AND EXISTS { (b)-[:UNCLE_OF]->(a) } AS direct_reverse
