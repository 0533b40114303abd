// LockTrigger: take a trigger's write lock and read it with its conditions, so a
// read-modify-write (a fire's counters, the burst window, an edit) is atomic.
// Params: $id. Returns: zero or one row {t, conditions}.
MATCH (t:Trigger {id: $id})
SET t._lock = true
REMOVE t._lock
WITH t
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
RETURN t, collect(c) AS conditions
