// InsertBacklogItem: a new work-backlog item with the next id from its counter.
// Params: $props (the item's properties but id). Returns: one row {id}.
MATCH (n:Counter {name: 'backlog_item'})
SET n.value = n.value + 1
WITH n.value AS id
CREATE (b:BacklogItem)
SET b = $props, b.id = id
RETURN id
