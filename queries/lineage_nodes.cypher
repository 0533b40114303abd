// LineageNodes: what a hierarchy shows of each session: label fields, its spawn parent and
// every uncle; as one row of maps (one record is far cheaper over Bolt than one per node).
// Params: $ids. Returns: one row {nodes: [{id, title, agent_root, status, genesis,
// scheduling_class, parent_id, uncle_ids}]}.
UNWIND $ids AS nid
MATCH (s:Session {id: nid})
RETURN collect({id: s.id, title: s.title, agent_root: s.agent_root_key, status: s.status,
  genesis: s.genesis, scheduling_class: s.scheduling_class,
  parent_id: [(p:Session)-[:SPAWNED]->(s) | p.id][0],
  uncle_ids: [(u:Session)-[:UNCLE_OF]->(s) | u.id]}) AS nodes
