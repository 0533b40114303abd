// DeleteMessage: remove one message and shift every later one down a place, so positions stay
// 1..n. Run it holding the session's lock.
// Params: $session_id, $id. Returns: zero or one row {position, shifted} (none when the message
// is missing: grouping by the deleted position keeps an empty match empty).
MATCH (s:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {id: $id})
WITH s, m, m.position AS gone
DETACH DELETE m
WITH s, gone
OPTIONAL MATCH (s)-[:HAS_MESSAGE]->(later:EnqueuedMessage)
WHERE later.position > gone
SET later.position = later.position - 1
RETURN gone AS position, count(later) AS shifted
