// WakesOfSession: the one-time triggers (wakes) that resume this session, with their conditions.
// Params: $session_id. Returns: rows {t, conditions}.
MATCH (t:Trigger {one_time: true, last_session_id: $session_id})
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
RETURN t, collect(c) AS conditions
ORDER BY t.id
