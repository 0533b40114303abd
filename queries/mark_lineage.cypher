// MarkLineage: give the given sessions what the lineage writers now give every session and edge,
// for those written before: the ends' ids (senior_id, junior_id) and onward on every lineage
// edge into them, :Spawner on those that spawned, :WideSenior on those with more than $wide
// juniors (see link_spawn_parent). Every edge has one junior, so paging every session reaches
// every edge. A junior is locked before onward is read off it, as every edge writer locks it,
// so a writer giving it its first junior meanwhile is not undone.
// Params: $session_ids, $wide. Returns: one row {numbered, labelled}.
CALL () {
  UNWIND $session_ids AS id
  MATCH (b:Session {id: id})
  WHERE EXISTS { MATCH ()-[e:SPAWNED|UNCLE_OF]->(b) WHERE e.senior_id IS NULL OR e.junior_id IS NULL OR e.onward IS NULL }
  SET b._lock = true
  REMOVE b._lock
  WITH b, EXISTS { (b)-[:SPAWNED|UNCLE_OF]->() } AS onward
  MATCH (a:Session)-[e:SPAWNED|UNCLE_OF]->(b)
  WHERE e.senior_id IS NULL OR e.junior_id IS NULL OR e.onward IS NULL
  SET e.senior_id = a.id, e.junior_id = b.id, e.onward = coalesce(e.onward, false) OR onward
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
