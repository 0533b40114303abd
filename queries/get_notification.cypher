// GetNotification: one notification by id, stale or not, with the session it is about.
// Params: $id. Returns: no row when no notification has the id, else one row {n, s}.
MATCH (n:Notification {id: $id})
OPTIONAL MATCH (s:Session)-[:HAS_NOTIFICATION]->(n)
RETURN n, s
