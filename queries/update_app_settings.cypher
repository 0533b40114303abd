// UpdateAppSettings: change the settings given; a null parameter leaves its setting as it is.
// Params: $name, $provenance_via_mcp_enabled (boolean or null), $at.
// Returns: one row {provenance_via_mcp_enabled, updated_at}.
MERGE (a:AppSetting {name: $name})
ON CREATE SET a.created_at = $at
SET a.provenance_via_mcp_enabled = coalesce($provenance_via_mcp_enabled, a.provenance_via_mcp_enabled, true),
    a.updated_at = $at
RETURN a.provenance_via_mcp_enabled AS provenance_via_mcp_enabled, a.updated_at AS updated_at
