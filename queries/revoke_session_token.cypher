// RevokeSessionToken: remove a session's capability token.
// Params: $id. Returns: one row {revoked: count}.
OPTIONAL MATCH (:Session {id: $id})-[:HAS_TOKEN]->(t:SessionToken)
DETACH DELETE t
RETURN count(t) AS revoked
