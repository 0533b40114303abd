// IssueSessionToken: give a session a new capability token, replacing the one it had (a token
// is stored only as its SHA-256 digest). Locks the session first, so two issues cannot create two.
// Params: $id, $digest, $at. Returns: zero rows when the session is missing, else one row {issued_at}.
MATCH (s:Session {id: $id})
SET s._lock = true
REMOVE s._lock
MERGE (s)-[:HAS_TOKEN]->(t:SessionToken)
SET t.session_id = $id, t.digest = $digest, t.issued_at = $at
RETURN t.issued_at AS issued_at
