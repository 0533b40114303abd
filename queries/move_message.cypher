// MoveMessage: move one message to $position (clamped to the queue's length) and shift the
// messages between its old and new place by one, so positions stay 1..n and the others keep
// their order. Run it holding the session's lock.
// Params: $session_id, $id, $position (>= 1), $at. Returns: zero or one row {m}.
MATCH (s:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {id: $id})
MATCH (s)-[:HAS_MESSAGE]->(o:EnqueuedMessage)
WITH m, m.position AS from, collect(o) AS queue
WITH m, from, queue, CASE WHEN $position > size(queue) THEN size(queue) ELSE $position END AS to
UNWIND queue AS o
SET o.position = CASE
  WHEN o = m THEN to
  WHEN to < from AND o.position >= to AND o.position < from THEN o.position + 1
  WHEN to > from AND o.position > from AND o.position <= to THEN o.position - 1
  ELSE o.position
END
WITH m, count(o) AS moved
SET m.updated_at = $at
RETURN m
