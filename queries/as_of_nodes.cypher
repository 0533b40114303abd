// AsOfNodes: what the walk shows of each given session, with its spawn parent and its uncles as
// they stood at $as_of (title and status are today's: a session's own fields keep no history).
// Params: $ids, $as_of. Returns: rows {id, title, agent_root, status, genesis, scheduling_class,
// parent_id, uncle_ids} for the sessions that existed at $as_of.
UNWIND $ids AS id
MATCH (n:Session {id: id})
WHERE n.created_at <= $as_of
RETURN n.id AS id, n.title AS title, n.agent_root_key AS agent_root, n.status AS status, n.genesis AS genesis,
  n.scheduling_class AS scheduling_class,
  COLLECT { MATCH (p:Session)-[:SPAWNED]->(n) WHERE p.created_at <= $as_of RETURN p.id }[0] AS parent_id,
  COLLECT {
    MATCH (u:Session)-[e:UNCLE_OF|FORMER_UNCLE_OF]->(n)
    WHERE u.created_at <= $as_of AND e.created_at <= $as_of AND (e.removed_at IS NULL OR e.removed_at > $as_of)
    RETURN DISTINCT u.id AS uid ORDER BY uid
  } AS uncle_ids
