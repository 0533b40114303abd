// LineageNodes: what a hierarchy shows of each session: label fields, its spawn parent and
// every uncle.
// Params: $ids. Returns: rows {id, title, agent_root, status, genesis, scheduling_class,
// parent_id, uncle_ids}.
UNWIND $ids AS nid
MATCH (s:Session {id: nid})
OPTIONAL MATCH (p:Session)-[:SPAWNED]->(s)
RETURN s.id AS id, s.title AS title, s.agent_root_key AS agent_root, s.status AS status,
       s.genesis AS genesis, s.scheduling_class AS scheduling_class, p.id AS parent_id,
       [(u:Session)-[:UNCLE_OF]->(s) | u.id] AS uncle_ids
