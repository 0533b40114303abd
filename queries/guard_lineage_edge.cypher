// GuardLineageEdge: lock and decide the new lineage edge $senior → $junior, exactly and without
// a lock on the whole lineage; with $uncle, also write it as an uncle edge when it is safe, so
// the common uncle write is one statement.
// The rule every lineage edge writer keeps: it locks both ends of its edge before its decision
// (this statement; session creation locks the spawn parent; the new session is invisible).
// A cycle closed by the edge needs a path from the junior back to the senior. The answer "no
// path" is certified by one side read to its end, held locked until commit:
//   - no lock beyond the ends when the junior has no junior or the senior no senior (read after
//     the ends are locked, nobody can add one before this transaction commits);
//   - else every session the junior reaches (closed under outgoing edges) or every session that
//     reaches the senior (closed under incoming edges), the smaller (see below): read, then locked
//     together with the ends in id order (so two first passes seldom wait on each other in a
//     circle; when guards do, Neo4j detects the deadlock and the transaction is retried whole),
//     then read again. If the second read finds the same side, no other writer can add an edge
//     out of (or into) it before this transaction commits, so the side cannot grow to take in
//     the other end: the answer is exact at commit, whatever commits concurrently. If it finds
//     more, a writer committed in between: stable is false and the caller runs the statement
//     again, holding the locks it has. A path seen is a path committed, so finding one needs no
//     lock; it counts only if the edge is still risky once the ends are locked.
// Both sides are read up to $cap + 1 sessions (the senior's only when the junior's has more than
// $small, which most edges' do not); when neither completes, the junior's whole side is locked
// (no budget after which the answer lapses). The side is locked by id, so a session deleted
// since it was read is skipped (a deletion takes edges away; it cannot close a cycle).
// "Already senior" is an exact bidirectional breadth-first search (shortestPath), skipped for a
// :WideSenior with no way on: a path from the senior leaves it by an edge into the junior itself
// or into a session with juniors of its own, and every edge into such a session is `onward`
// (every edge writer keeps this: see link_spawn_parent), so a wide senior whose edges, found from
// the indexes on the edges' ends and on (senior_id, onward), include neither reaches only its own
// juniors. That is a router fanned out to workers that have no juniors: thousands of edges not
// read, where the search would read them all and then every worker's.
// Params: $senior, $junior, $uncle (bool), $source, $at, $cap, $small, $wide (see
// link_spawn_parent). The caller handles $senior = $junior.
// Returns: one row {senior_exists, junior_exists, senior_reaches, direct_reverse, junior_reaches,
// stable, locked (sessions locked besides the ends), created}.
OPTIONAL MATCH (a:Session {id: $senior})
OPTIONAL MATCH (b:Session {id: $junior})
WITH a, b, a IS NOT NULL AND b IS NOT NULL AS both
OPTIONAL CALL (a, b, both) {
  WITH a, b WHERE both AND EXISTS { (b)-[:SPAWNED|UNCLE_OF]->(:Session) } AND EXISTS { (:Session)-[:SPAWNED|UNCLE_OF]->(a) }
  WITH a, b, COLLECT { MATCH (b)-[:SPAWNED|UNCLE_OF*0..]->(x:Session) RETURN DISTINCT x LIMIT $cap + 1 } AS down
  // A small junior side is taken without reading the senior's.
  OPTIONAL CALL (a, down) {
    WITH a WHERE size(down) > $small
    RETURN COLLECT { MATCH (y:Session)-[:SPAWNED|UNCLE_OF*0..]->(a) RETURN DISTINCT y LIMIT $cap + 1 } AS upRead
  }
  WITH a, b, down, coalesce(upRead, []) AS up, upRead IS NULL AS upSkipped
  WITH a, b, down, up, CASE
         WHEN a IN down OR b IN up THEN 'found'
         WHEN size(down) <= $cap AND (upSkipped OR size(up) > $cap OR size(down) <= size(up)) THEN 'down'
         WHEN size(up) <= $cap THEN 'up'
         ELSE 'down_all'
       END AS side
  RETURN side, CASE side
         WHEN 'down' THEN [n IN down | n.id]
         WHEN 'up' THEN [n IN up | n.id]
         WHEN 'down_all' THEN COLLECT { MATCH (b)-[:SPAWNED|UNCLE_OF*0..]->(x:Session) RETURN DISTINCT x.id AS i }
         ELSE []
       END AS held
}
WITH a, b, both, coalesce(side, 'none') AS side, coalesce(held, []) AS held
CALL (a, b, held) {
  UNWIND [n IN [a, b] WHERE n IS NOT NULL | n.id] + held AS i
  WITH DISTINCT i ORDER BY i
  MATCH (n:Session {id: i})
  SET n._lock = true
  REMOVE n._lock
}
WITH a, b, both, side, held,
     both AND EXISTS { (b)-[:SPAWNED|UNCLE_OF]->(:Session) } AND EXISTS { (:Session)-[:SPAWNED|UNCLE_OF]->(a) } AS risky
OPTIONAL CALL (a, b, both) {
  WITH a, b WHERE both
  OPTIONAL CALL (a, b) {
    WITH a, b WHERE NOT a:WideSenior
      OR EXISTS { MATCH ()-[e:SPAWNED]->() WHERE e.senior_id = a.id AND e.junior_id = b.id }
      OR EXISTS { MATCH ()-[e:UNCLE_OF]->() WHERE e.senior_id = a.id AND e.junior_id = b.id }
      OR EXISTS { MATCH ()-[e:SPAWNED]->() WHERE e.senior_id = a.id AND e.onward = true }
      OR EXISTS { MATCH ()-[e:UNCLE_OF]->() WHERE e.senior_id = a.id AND e.onward = true }
    OPTIONAL MATCH down = shortestPath((a)-[:SPAWNED|UNCLE_OF*]->(b))
    RETURN down IS NOT NULL AS found
  }
  RETURN coalesce(found, false) AS seniorReaches, EXISTS { (b)-[:UNCLE_OF]->(a) } AS reverse
}
OPTIONAL CALL (a, b, side, risky, seniorReaches, reverse) {
  WITH a, b WHERE risky AND NOT seniorReaches AND NOT reverse AND side IN ['down', 'down_all']
  RETURN COLLECT { MATCH (b)-[:SPAWNED|UNCLE_OF*0..]->(x:Session) RETURN DISTINCT x } AS downAgain
}
OPTIONAL CALL (a, b, side, risky, seniorReaches, reverse) {
  WITH a, b WHERE risky AND NOT seniorReaches AND NOT reverse AND side = 'up'
  RETURN COLLECT { MATCH (y:Session)-[:SPAWNED|UNCLE_OF*0..]->(a) RETURN DISTINCT y } AS upAgain
}
WITH a, b, both, side, held, risky, seniorReaches, reverse, coalesce(downAgain, upAgain, []) AS again
WITH a, b, both, held, seniorReaches, reverse,
     risky AND (side = 'found' OR (side = 'up' AND b IN again) OR (side IN ['down', 'down_all'] AND a IN again)) AS juniorReaches,
     NOT risky OR seniorReaches OR reverse OR side = 'found'
       OR (side <> 'none' AND size(COLLECT { UNWIND held + [n IN again | n.id] AS i RETURN DISTINCT i }) = size(held)) AS stable
OPTIONAL CALL (a, b, both, seniorReaches, reverse, juniorReaches, stable) {
  WITH a, b WHERE $uncle AND both AND stable AND NOT seniorReaches AND NOT reverse AND NOT juniorReaches
  WITH a, b, EXISTS { (b)-[:SPAWNED|UNCLE_OF]->() } AS onward
  MERGE (a)-[e:UNCLE_OF]->(b)
  ON CREATE SET e.source = $source, e.created_at = $at, e.senior_id = a.id, e.junior_id = b.id, e.onward = onward
  FOREACH (_ IN CASE WHEN COUNT { (a)-[:SPAWNED|UNCLE_OF]->() } > $wide THEN [1] ELSE [] END | SET a:WideSenior)
  WITH a
  CALL (a) {
    MATCH ()-[i:SPAWNED|UNCLE_OF]->(a) WHERE i.onward IS NULL OR NOT i.onward
    SET i.onward = true
  }
  RETURN true AS created
}
RETURN a IS NOT NULL AS senior_exists, b IS NOT NULL AS junior_exists, coalesce(seniorReaches, false) AS senior_reaches,
       coalesce(reverse, false) AS direct_reverse, coalesce(juniorReaches, false) AS junior_reaches, stable,
       size(held) AS locked, coalesce(created, false) AS created
