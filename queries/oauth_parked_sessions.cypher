// OAuthParkedSessions: the failed sessions parked until a human authorizes an MCP server
// (metadata.failure_reason oauth_required); the caller reads which servers each waits on.
// Params: $limit (integer). Returns: rows {id}.
MATCH (s:Session {status: 'failed'})
WHERE s.metadata CONTAINS '"failure_reason":"oauth_required"'
RETURN s.id AS id
ORDER BY id
LIMIT $limit
