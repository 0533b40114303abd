// DeleteTriggers: delete triggers and their conditions.
// Params: $ids. Returns: one row {deleted}.
OPTIONAL MATCH (t:Trigger) WHERE t.id IN $ids
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
WITH t, collect(c) AS conditions
FOREACH (c IN conditions | DETACH DELETE c)
WITH collect(t) AS gone
FOREACH (t IN gone | DETACH DELETE t)
RETURN size(gone) AS deleted
