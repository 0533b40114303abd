// PutOAuthCredential: stores (creates or replaces) one MCP server's sealed OAuth credential.
// Params: $server, $url, $sealed (strings), $expires_at (datetime or null), $refreshable (bool),
// $at (datetime). Returns: one row {server}.
MERGE (c:McpOAuthCredential {server: $server})
SET c.url = $url, c.sealed = $sealed, c.expires_at = $expires_at, c.refreshable = $refreshable, c.updated_at = $at
RETURN c.server AS server
