// ListMessages: one page of a session's queue in position order, with the filter's total.
// An empty $status matches every status.
// Params: $session_id, $status, $skip, $limit. Returns: one row {total, messages: list of nodes}.
OPTIONAL MATCH (:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage)
WHERE $status = '' OR m.status = $status
WITH m ORDER BY m.position, m.id
WITH collect(m) AS matched
RETURN size(matched) AS total, matched[$skip..$skip + $limit] AS messages
