// GetMessage: one message of one session (a message id under another session is not found).
// Params: $session_id, $id. Returns: zero or one row {m}.
MATCH (:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {id: $id})
RETURN m
