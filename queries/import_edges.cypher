// ImportEdges: bulk-create spawn and uncle edges for a synthetic fleet. It locks nothing and
// checks no cycles: the caller guarantees the edges are acyclic (e.g. senior id < junior id).
// Spawners, ends' ids and onward on every edge, and wide seniors are marked as
// link_spawn_parent marks them.
// Params: $spawns (list of {from, to}), $uncles (list of {from, to}), $at, $wide. Returns: one
// row {ok}.
CALL () {
  UNWIND $spawns AS e
  MATCH (a:Session {id: e.from}), (b:Session {id: e.to})
  CREATE (a)-[:SPAWNED {senior_id: a.id, junior_id: b.id}]->(b)
  SET a:Spawner
}
CALL () {
  UNWIND $uncles AS e
  MATCH (a:Session {id: e.from}), (b:Session {id: e.to})
  MERGE (a)-[u:UNCLE_OF]->(b)
  ON CREATE SET u.source = 'bench', u.created_at = $at, u.senior_id = a.id, u.junior_id = b.id
}
CALL () {
  UNWIND $spawns + $uncles AS e
  WITH DISTINCT e.from AS id
  MATCH (a:Session {id: id})
  WHERE COUNT { (a)-[:SPAWNED|UNCLE_OF]->() } > $wide
  SET a:WideSenior
}
CALL () {
  UNWIND $spawns + $uncles AS e
  UNWIND [e.from, e.to] AS id
  WITH DISTINCT id
  MATCH ()-[i:SPAWNED|UNCLE_OF]->(b:Session {id: id})
  SET i.onward = EXISTS { (b)-[:SPAWNED|UNCLE_OF]->() }
}
RETURN true AS ok
