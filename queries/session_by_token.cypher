// SessionByToken: the session a capability token (by its digest) authenticates as. An archived
// session's token authenticates nobody, whether or not its revocation was written.
// Params: $digest, $archived (the archived status). Returns: zero or one row {id}.
MATCH (t:SessionToken {digest: $digest})
MATCH (s:Session {id: t.session_id})-[:HAS_TOKEN]->(t)
WHERE s.status <> $archived
RETURN s.id AS id
