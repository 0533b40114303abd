// WatchersOfSession: the triggers with an ao_event condition watching this session.
// Params: $session_id. Returns: rows {trigger_id}.
MATCH (t:Trigger)-[:HAS_CONDITION]->(:TriggerCondition {watched_session_id: $session_id})
RETURN DISTINCT t.id AS trigger_id
ORDER BY trigger_id
