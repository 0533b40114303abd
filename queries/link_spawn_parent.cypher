// LinkSpawnParent: make the SPAWNED edge of a session match its lineage parent (the
// parent_session_id property, else router_session_id): remove a stale edge, add the right one.
// A new edge only with $link: the caller locked the parent, as every lineage edge writer locks
// both ends (see guard_lineage_edge), so a parent created since it looked gets no edge.
// A session that spawned is a :Spawner (a walk down the spawn tree expands only those); one whose
// children all moved away stays one, which costs a walk one look and nothing else. Every lineage
// edge carries its ends' ids (senior_id, junior_id), and a session with more than $wide juniors
// is a :WideSenior: session_provenance reads such a session's juniors in order from the
// indexes on those ids instead of reading them all. An edge is `onward` when its junior has
// juniors of its own; the edges into a senior turn onward with its first junior (a stale onward,
// left when a session loses its last junior, only costs guard_lineage_edge a search). Every edge
// writer holds both ends locked, so two writers never disagree on whether a session has juniors.
// Params: $id, $link (bool), $wide. Returns: one row {parent_id: the linked parent's id or null}.
MATCH (s:Session {id: $id})
OPTIONAL MATCH (old:Session)-[e:SPAWNED]->(s)
WHERE old.id <> coalesce(s.parent_session_id, s.router_session_id, -1)
DELETE e
WITH DISTINCT s
OPTIONAL MATCH (p:Session {id: coalesce(s.parent_session_id, s.router_session_id, -1)})
WHERE p <> s AND $link
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END |
  MERGE (p)-[e:SPAWNED]->(s)
  SET p:Spawner, e.senior_id = p.id, e.junior_id = s.id, e.onward = EXISTS { (s)-[:SPAWNED|UNCLE_OF]->() })
WITH p
FOREACH (_ IN CASE WHEN COUNT { (p)-[:SPAWNED|UNCLE_OF]->() } > $wide THEN [1] ELSE [] END | SET p:WideSenior)
WITH p
CALL (p) {
  MATCH ()-[i:SPAWNED|UNCLE_OF]->(p) WHERE i.onward IS NULL OR NOT i.onward
  SET i.onward = true
}
RETURN p.id AS parent_id
