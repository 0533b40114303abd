// GetAppSettings: the deployment's settings, kept on the one AppSetting named 'default'; a
// setting never written reads as its default (provenance_via_mcp_enabled ships on).
// Params: none. Returns: one row {provenance_via_mcp_enabled, updated_at}.
OPTIONAL MATCH (a:AppSetting {name: 'default'})
RETURN coalesce(a.provenance_via_mcp_enabled, true) AS provenance_via_mcp_enabled, a.updated_at AS updated_at
