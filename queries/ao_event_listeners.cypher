// AOEventListeners: the enabled triggers with an ao_event condition for $event that watches
// this session, or (when the session is autonomous) listens to every session.
// Params: $event, $session_id, $autonomous. Returns: rows {trigger_id, condition_id}.
MATCH (t:Trigger {status: 'enabled'})-[:HAS_CONDITION]->(c:TriggerCondition {condition_type: 'ao_event', event_name: $event})
WHERE c.watched_session_id = $session_id OR (c.watched_session_id IS NULL AND $autonomous)
RETURN t.id AS trigger_id, c.id AS condition_id
ORDER BY t.id, c.id
