// ListOAuthCredentials: every stored OAuth credential (sealed), by server name.
// Params: none. Returns: rows {server, url, sealed, expires_at, refreshable, updated_at}.
MATCH (c:McpOAuthCredential)
RETURN c.server AS server, c.url AS url, c.sealed AS sealed, c.expires_at AS expires_at,
       c.refreshable AS refreshable, c.updated_at AS updated_at
ORDER BY server
