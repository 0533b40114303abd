// SaveTrigger: write a trigger's properties and make its conditions exactly $conditions (a
// condition it no longer lists is deleted).
// Params: $id, $props (the trigger's properties), $conditions (list of {id, props}).
// Returns: one row {conditions} — how many conditions it has now.
MERGE (t:Trigger {id: $id})
SET t = $props
WITH t
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(old:TriggerCondition)
WHERE NOT old.id IN [c IN $conditions | c.id]
DETACH DELETE old
WITH DISTINCT t
UNWIND $conditions AS c
MERGE (n:TriggerCondition {id: c.id})
MERGE (t)-[:HAS_CONDITION]->(n)
SET n = c.props
RETURN count(n) AS conditions
