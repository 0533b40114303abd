// GetSpotPolicy: the spot gate's policy and the genesis class overrides, kept on the
// deployment's AppSetting; a setting never written reads as null (its default applies).
// Params: $name (the AppSetting's name: 'default' outside the tests).
// Returns: one row {enabled, five_hour_pct, weekly_pct, max_concurrent, overrides (JSON text), updated_at}.
OPTIONAL MATCH (a:AppSetting {name: $name})
RETURN a.spot_gating_enabled AS enabled, a.spot_gate_five_hour_threshold_pct AS five_hour_pct,
       a.spot_gate_weekly_threshold_pct AS weekly_pct, a.spot_max_concurrent_sessions AS max_concurrent,
       a.genesis_class_overrides AS overrides, a.spot_policy_updated_at AS updated_at
