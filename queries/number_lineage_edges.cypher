// NumberLineageEdges: give every lineage edge into the given sessions the junior_id the edge
// writers now set (the session's id), so the walk orders a level's juniors by the edges alone.
// Params: $session_ids. Returns: one row {numbered}.
UNWIND $session_ids AS id
MATCH (:Session)-[e:SPAWNED|UNCLE_OF]->(j:Session {id: id})
WHERE e.junior_id IS NULL
SET e.junior_id = j.id
RETURN count(e) AS numbered
