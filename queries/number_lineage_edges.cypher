// NumberLineageEdges: give every lineage edge into the given sessions the ends' ids the edge
// writers now set (senior_id, junior_id), and label :WideSenior those of the sessions with more
// than $wide juniors, as link_spawn_parent does. Every edge has one junior, so paging every
// session numbers every edge.
// Params: $session_ids, $wide. Returns: one row {numbered, wide}.
CALL () {
  UNWIND $session_ids AS id
  MATCH (a:Session)-[e:SPAWNED|UNCLE_OF]->(b:Session {id: id})
  WHERE e.senior_id IS NULL OR e.junior_id IS NULL
  SET e.senior_id = a.id, e.junior_id = b.id
  RETURN count(e) AS numbered
}
CALL () {
  UNWIND $session_ids AS id
  MATCH (a:Session {id: id})
  WHERE NOT a:WideSenior AND COUNT { (a)-[:SPAWNED|UNCLE_OF]->() } > $wide
  SET a:WideSenior
  RETURN count(a) AS wide
}
RETURN numbered, wide
