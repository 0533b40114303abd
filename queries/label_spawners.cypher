// LabelSpawners: label :Spawner those of the sessions that have spawned, as link_spawn_parent
// labels a session the moment it does.
// Params: $session_ids. Returns: one row {labelled}.
UNWIND $session_ids AS id
MATCH (s:Session {id: id})
WHERE NOT s:Spawner AND EXISTS { (s)-[:SPAWNED]->() }
SET s:Spawner
RETURN count(s) AS labelled
