// InsertMessage: append a message to the end of its session's queue (largest position + 1).
// Run it holding the session's lock, so two appends cannot take the same position.
// Params: $session_id, $id, $content, $goal (string or null), $status, $origin, $at (datetime).
// Returns: zero or one row {m} (none when the session does not exist).
MATCH (s:Session {id: $session_id})
OPTIONAL MATCH (s)-[:HAS_MESSAGE]->(other:EnqueuedMessage)
WITH s, coalesce(max(other.position), 0) + 1 AS position
CREATE (s)-[:HAS_MESSAGE]->(m:EnqueuedMessage {
  id: $id, session_id: $session_id, content: $content, goal: $goal, position: position,
  status: $status, origin: $origin, created_at: $at, updated_at: $at
})
RETURN m
