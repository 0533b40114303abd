// ClaimNextMessage: mark the lowest-position pending message of a session as processing. Run it
// holding the session's lock: that lock is what makes each message claimed exactly once.
// Params: $session_id, $at. Returns: zero or one row {m} (none when nothing is pending).
MATCH (:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {status: 'pending'})
WITH m ORDER BY m.position LIMIT 1
SET m.status = 'processing', m.updated_at = $at
RETURN m
