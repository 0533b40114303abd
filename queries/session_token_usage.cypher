// SessionTokenUsage: a session's ledger rows, oldest request first.
// Params: $session_id. Returns: one row {u} per request.
MATCH (:Session {id: $session_id})-[:USED_TOKENS]->(u:TokenUsage)
RETURN u
ORDER BY u.called_at, u.request_id
