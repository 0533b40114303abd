package mcp_test

import (
	"testing"
)

func TestTheSpotPolicyToolsReadAndChangeTheGateAndTheGenesisClasses(t *testing.T) {
	e := setup(t)
	t.Cleanup(func() {
		e.call(t, "/mcp", "action_spot_policy", map[string]any{"action": "set_gating", "enabled": false,
			"five_hour_threshold_pct": 80, "weekly_threshold_pct": 80, "max_concurrent_sessions": 10})
		e.call(t, "/mcp", "action_spot_policy", map[string]any{"action": "reset_genesis_classes"})
	})
	e.refused(t, "/mcp", "action_spot_policy", map[string]any{"action": "set_gating"},
		"Nothing to change: pass enabled, five_hour_threshold_pct, weekly_threshold_pct or max_concurrent_sessions")
	e.refused(t, "/mcp", "action_spot_policy", map[string]any{"action": "promote_genesis"}, `The "genesis" parameter is required`)
	e.refused(t, "/mcp", "action_spot_policy", map[string]any{"action": "set_gating", "max_concurrent_sessions": 0}, "Invalid arguments")

	text := e.ok(t, "/mcp", "action_spot_policy", map[string]any{"action": "set_gating", "enabled": true,
		"five_hour_threshold_pct": 70, "max_concurrent_sessions": 2})
	contains(t, text, "## Spot policy updated", "- **claude_code:** spot sessions are")
	text = e.ok(t, "/mcp", "get_spot_policy", map[string]any{})
	contains(t, text, "- **Gating:** on", "5-hour 70%, weekly 80%", "- **Max sessions at once (per runtime pool):** 2",
		"`api`: spot — set it via action_spot_policy", "`slack`: priority — set it via its trigger's scheduling_class",
		"### Ranked spot queue")

	e.ok(t, "/mcp", "action_spot_policy", map[string]any{"action": "promote_genesis", "genesis": "api"})
	contains(t, e.ok(t, "/mcp", "get_spot_policy", map[string]any{}), "`api`: priority (changed from spot)")
	e.ok(t, "/mcp", "action_spot_policy", map[string]any{"action": "reset_genesis_classes"})
	contains(t, e.ok(t, "/mcp", "get_spot_policy", map[string]any{}), "`api`: spot — set it via")
}
