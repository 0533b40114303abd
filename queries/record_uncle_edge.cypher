// RecordUncleEdge: decide, and in the common case write, the uncle edge $senior → $junior in
// one statement. Locks, in this order, so no two writers wait on each other in a circle:
//   1. both sessions (a dummy write each, lower id first);
//   2. only when a cycle through the new edge is possible at all — the junior has a junior of
//      its own and the senior has a senior of its own — the one lineage lock (lock_lineage).
// Why the lineage lock may be skipped: a cycle closed by the edge needs an edge out of the
// junior and an edge into the senior. Every edge writer locks both of its ends first, so while
// this statement's transaction holds its two locks no other can add either; whatever committed
// earlier was read here, after the locks. The lock-free case therefore can close no cycle, now
// or together with any concurrent write; every other case is serialised as before.
// Reachability is complete and exact (bidirectional breadth-first search, expanding the
// smaller side, stopping at the first meeting; no budget). The junior-side search runs only
// when the decision still needs it. The caller handles $senior = $junior.
// Params: $senior, $junior, $source, $at. Returns: one row {senior_exists, junior_exists,
// senior_reaches, direct_reverse, junior_reaches (null when not needed), created}.
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
WITH a, b, a IS NOT NULL AND b IS NOT NULL AS both
WITH a, b, both,
     both AND EXISTS { (b)-[:SPAWNED|UNCLE_OF]->(:Session) } AND EXISTS { (:Session)-[:SPAWNED|UNCLE_OF]->(a) } AS risky
CALL (risky) {
  WITH risky WHERE risky
  MERGE (l:GraphLock {scope: 'lineage'})
  SET l._lock = true
  REMOVE l._lock
}
OPTIONAL CALL (a, b, both) {
  WITH a, b WHERE both
  OPTIONAL MATCH down = shortestPath((a)-[:SPAWNED|UNCLE_OF*]->(b))
  RETURN down IS NOT NULL AS seniorReaches, EXISTS { (b)-[:UNCLE_OF]->(a) } AS reverse
}
OPTIONAL CALL (a, b, risky, seniorReaches, reverse) {
  WITH a, b WHERE risky AND NOT seniorReaches AND NOT reverse
  OPTIONAL MATCH up = shortestPath((b)-[:SPAWNED|UNCLE_OF*]->(a))
  RETURN up IS NOT NULL AS juniorReaches
}
WITH a, b, both, seniorReaches, reverse,
     CASE WHEN both AND NOT risky THEN false ELSE juniorReaches END AS juniorReaches
OPTIONAL CALL (a, b, both, seniorReaches, reverse, juniorReaches) {
  WITH a, b WHERE both AND NOT seniorReaches AND NOT reverse AND NOT juniorReaches
  MERGE (a)-[e:UNCLE_OF]->(b)
  ON CREATE SET e.source = $source, e.created_at = $at
  RETURN true AS created
}
RETURN a IS NOT NULL AS senior_exists, b IS NOT NULL AS junior_exists, seniorReaches AS senior_reaches,
       reverse AS direct_reverse, juniorReaches AS junior_reaches, coalesce(created, false) AS created
