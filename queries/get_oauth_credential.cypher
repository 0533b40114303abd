// GetOAuthCredential: the stored OAuth credential of one MCP server (sealed; never decrypted here).
// Params: $server (string). Returns: zero or one row {server, url, sealed, expires_at, refreshable, updated_at}.
MATCH (c:McpOAuthCredential {server: $server})
RETURN c.server AS server, c.url AS url, c.sealed AS sealed, c.expires_at AS expires_at,
       c.refreshable AS refreshable, c.updated_at AS updated_at
