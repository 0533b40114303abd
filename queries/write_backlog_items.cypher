// WriteBacklogItems: store the given work-backlog items' properties (rank and status included).
// Params: $rows (list of {id, props}). Returns: rows {id} of the items written.
UNWIND $rows AS row
MATCH (b:BacklogItem {id: row.id})
SET b += row.props
RETURN b.id AS id
