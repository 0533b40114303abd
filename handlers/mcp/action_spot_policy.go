package mcp

func actionSpotPolicyTool() *toolDef {
	return notYet(&toolDef{name: "action_spot_policy", group: groupHealth, write: true, full: variant{
		description: "Change the spot gate (enabled, quota thresholds, concurrency) or move a genesis between the spot " +
			"and priority classes.",
		schema: newSchema(fields{
			"action":                  str("What to do.").enum("set_gating", "promote_genesis", "demote_genesis", "reset_genesis_classes"),
			"genesis":                 str("promote/demote: the genesis.").enum("web_ui", "api", "unknown"),
			"enabled":                 boolean("set_gating: gate on or off."),
			"five_hour_threshold_pct": integer("set_gating: 5-hour utilization target.").min(0).max(100),
			"weekly_threshold_pct":    integer("set_gating: weekly utilization target.").min(0).max(100),
			"max_concurrent_sessions": integer("set_gating: spot sessions at once.").min(1).max(100),
		}, "action"),
	}}, needsSpotPolicy)
}
