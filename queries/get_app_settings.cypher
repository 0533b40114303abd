// GetAppSettings: the deployment's settings, kept on the deployment's one AppSetting; a
// setting never written reads as its default (provenance_via_mcp_enabled ships on).
// Params: $name (the AppSetting's name: 'default' outside the tests). Returns: one row {provenance_via_mcp_enabled, updated_at}.
OPTIONAL MATCH (a:AppSetting {name: $name})
RETURN coalesce(a.provenance_via_mcp_enabled, true) AS provenance_via_mcp_enabled, a.updated_at AS updated_at
