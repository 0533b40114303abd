// UpdateMessage: replace a message's content and goal (a null goal removes it).
// Params: $session_id, $id, $content, $goal, $at. Returns: zero or one row {m}.
MATCH (:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {id: $id})
SET m.content = $content, m.goal = $goal, m.updated_at = $at
RETURN m
