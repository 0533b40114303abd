// ImportEdges: bulk-create spawn and uncle edges for a synthetic fleet. It locks nothing and
// checks no cycles: the caller guarantees the edges are acyclic (e.g. senior id < junior id).
// A spawner is labelled :Spawner and every edge carries junior_id, as link_spawn_parent does.
// Params: $spawns (list of {from, to}), $uncles (list of {from, to}), $at. Returns: one row {ok}.
CALL () {
  UNWIND $spawns AS e
  MATCH (a:Session {id: e.from}), (b:Session {id: e.to})
  CREATE (a)-[:SPAWNED {junior_id: b.id}]->(b)
  SET a:Spawner
}
CALL () {
  UNWIND $uncles AS e
  MATCH (a:Session {id: e.from}), (b:Session {id: e.to})
  MERGE (a)-[u:UNCLE_OF]->(b)
  ON CREATE SET u.source = 'bench', u.created_at = $at, u.junior_id = b.id
}
RETURN true AS ok
