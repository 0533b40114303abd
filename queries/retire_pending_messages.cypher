// RetirePendingMessages: mark every pending message of a session undelivered (a forced archive
// discards them; the rows stay, terminal, as the record of what was never delivered).
// Params: $session_id, $at. Returns: one row {retired}.
OPTIONAL MATCH (:Session {id: $session_id})-[:HAS_MESSAGE]->(m:EnqueuedMessage {status: 'pending'})
SET m.status = 'undelivered', m.updated_at = $at
RETURN count(m) AS retired
