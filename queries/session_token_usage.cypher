// SessionTokenUsage: a session's ledger rows, oldest request first.
// Params: $session_id. Returns: one row {u} per request.
MATCH (u:TokenUsage {session_id: $session_id})
RETURN u
ORDER BY u.called_at, u.request_id
