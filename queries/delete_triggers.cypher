// DeleteTriggers: delete triggers and their conditions.
// Params: $ids. Returns: one row {deleted} — how many triggers existed.
MATCH (t:Trigger) WHERE t.id IN $ids
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
DETACH DELETE c
WITH DISTINCT t
DETACH DELETE t
RETURN count(*) AS deleted
