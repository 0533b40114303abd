// EnabledTriggersOfType: every enabled trigger with a condition of one type, with all its
// conditions (the schedule sweep and the pollers walk these).
// Params: $type. Returns: rows {t, conditions}.
MATCH (t:Trigger {status: 'enabled'})-[:HAS_CONDITION]->(:TriggerCondition {condition_type: $type})
WITH DISTINCT t
MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
RETURN t, collect(c) AS conditions
