// RecordUncleEdge: decide the uncle edge $senior → $junior as far as the senior's side goes.
// Locks both sessions first (a dummy write each, lower id first), as every edge writer does:
// the cycle check that follows (lineage_guard, in the same transaction) relies on it.
// Whether the senior already reaches the junior is complete and exact (bidirectional
// breadth-first search, expanding the smaller side, stopping at the first meeting; no budget).
// The caller handles $senior = $junior.
// Params: $senior, $junior. Returns: one row {senior_exists, junior_exists, senior_reaches,
// direct_reverse} (the last two null unless both exist).
OPTIONAL MATCH (lo:Session {id: CASE WHEN $senior < $junior THEN $senior ELSE $junior END})
SET lo._lock = true
REMOVE lo._lock
WITH lo
OPTIONAL MATCH (hi:Session {id: CASE WHEN $senior < $junior THEN $junior ELSE $senior END})
SET hi._lock = true
REMOVE hi._lock
WITH lo, hi
OPTIONAL MATCH (a:Session {id: $senior})
OPTIONAL MATCH (b:Session {id: $junior})
OPTIONAL CALL (a, b) {
  WITH a, b WHERE a IS NOT NULL AND b IS NOT NULL
  OPTIONAL MATCH down = shortestPath((a)-[:SPAWNED|UNCLE_OF*]->(b))
  RETURN down IS NOT NULL AS seniorReaches, EXISTS { (b)-[:UNCLE_OF]->(a) } AS reverse
}
RETURN a IS NOT NULL AS senior_exists, b IS NOT NULL AS junior_exists, seniorReaches AS senior_reaches,
       reverse AS direct_reverse
