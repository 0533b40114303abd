// InsertSession: advance the session sequence to $id and create the node with every property.
// The caller holds the counter lock (LockSessionCounter) and computed $id = value + 1.
// Params: $id, $props (map of Session properties, id included). Returns: one row {s}.
MATCH (c:Counter {name: 'session'})
SET c.value = $id
CREATE (s:Session)
SET s = $props
RETURN s
