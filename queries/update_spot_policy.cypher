// UpdateSpotPolicy: write the whole spot policy (the caller read, changed and validated it).
// Params: $name, $enabled, $five_hour_pct, $weekly_pct, $max_concurrent, $overrides (JSON
// text), $at. Returns: one row {enabled, five_hour_pct, weekly_pct, max_concurrent, overrides, updated_at}.
MERGE (a:AppSetting {name: $name})
ON CREATE SET a.created_at = $at
SET a.spot_gating_enabled = $enabled, a.spot_gate_five_hour_threshold_pct = $five_hour_pct,
    a.spot_gate_weekly_threshold_pct = $weekly_pct, a.spot_max_concurrent_sessions = $max_concurrent,
    a.genesis_class_overrides = $overrides, a.spot_policy_updated_at = $at, a.updated_at = $at
RETURN a.spot_gating_enabled AS enabled, a.spot_gate_five_hour_threshold_pct AS five_hour_pct,
       a.spot_gate_weekly_threshold_pct AS weekly_pct, a.spot_max_concurrent_sessions AS max_concurrent,
       a.genesis_class_overrides AS overrides, a.spot_policy_updated_at AS updated_at
