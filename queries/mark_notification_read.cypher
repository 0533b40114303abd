// MarkNotificationRead: marks one notification read.
// Params: $id, $at (datetime). Returns: no row when no notification has the id, else one row {n, s}.
MATCH (n:Notification {id: $id})
SET n.read = true, n.updated_at = $at
WITH n
OPTIONAL MATCH (s:Session)-[:HAS_NOTIFICATION]->(n)
RETURN n, s
