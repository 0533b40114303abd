// SetMessageStatus: move one message to another status (e.g. a failed hand-off releases its claim).
// Params: $session_id, $id, $status, $at. Returns: zero or one row {m}.
MATCH (:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {id: $id})
SET m.status = $status, m.updated_at = $at
RETURN m
