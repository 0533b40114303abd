// GetBacklogItem: one work-backlog item by id. Params: $id. Returns: one row {b}.
MATCH (b:BacklogItem {id: $id})
RETURN b
