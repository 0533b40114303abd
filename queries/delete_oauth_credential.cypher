// DeleteOAuthCredential: retires one MCP server's OAuth credential (the provider refused it).
// Params: $server (string), $sealed (string: only this version is retired, so a fresh
// authorization stored meanwhile survives). Returns: one row {deleted}.
OPTIONAL MATCH (c:McpOAuthCredential {server: $server, sealed: $sealed})
WITH c, c IS NOT NULL AS deleted
DETACH DELETE c
RETURN deleted
