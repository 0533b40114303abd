// GetTrigger: read one trigger with its conditions.
// Params: $id. Returns: zero or one row {t, conditions}.
MATCH (t:Trigger {id: $id})
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
RETURN t, collect(c) AS conditions
