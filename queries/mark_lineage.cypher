// MarkLineage: give the given sessions what the lineage writers now give every session and edge,
// for those written before: the ends' ids (senior_id, junior_id) on every lineage edge into
// them, :Spawner on those that spawned, :WideSenior on those with more than $wide juniors (see
// link_spawn_parent). Every edge has one junior, so paging every session reaches every edge.
// Params: $session_ids, $wide. Returns: one row {numbered, labelled}.
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
  WITH a, NOT a:Spawner AND EXISTS { (a)-[:SPAWNED]->() } AS spawner,
       NOT a:WideSenior AND COUNT { (a)-[:SPAWNED|UNCLE_OF]->() } > $wide AS wide
  WHERE spawner OR wide
  FOREACH (_ IN CASE WHEN spawner THEN [1] ELSE [] END | SET a:Spawner)
  FOREACH (_ IN CASE WHEN wide THEN [1] ELSE [] END | SET a:WideSenior)
  RETURN count(a) AS labelled
}
RETURN numbered, labelled
