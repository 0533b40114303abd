package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

func actionSpotPolicyTool() *toolDef {
	return &toolDef{name: "action_spot_policy", group: groupHealth, write: true, full: variant{
		description: "Change the spot gate (enabled, quota thresholds, concurrency) or move a genesis between the spot " +
			"and priority classes.",
		schema: newSchema(fields{
			"action":                  spotPolicyVerbs.enum(),
			"genesis":                 str("promote/demote: the genesis.").enum("web_ui", "api", "unknown"),
			"enabled":                 boolean("set_gating: gate on or off."),
			"five_hour_threshold_pct": integer("set_gating: 5-hour utilization target.").min(0).max(100),
			"weekly_threshold_pct":    integer("set_gating: weekly utilization target.").min(0).max(100),
			"max_concurrent_sessions": integer("set_gating: spot sessions at once.").min(1).max(100),
		}, "action"),
		run: runActionSpotPolicy,
	}}
}

var spotPolicyVerbs = verbs[func(context.Context, *call) (settings.Spot, error)]{
	{"set_gating", spotSetGating},
	{"promote_genesis", func(ctx context.Context, c *call) (settings.Spot, error) {
		return spotMoveGenesis(ctx, c, session.ClassPriority)
	}},
	{"demote_genesis", func(ctx context.Context, c *call) (settings.Spot, error) {
		return spotMoveGenesis(ctx, c, session.ClassSpot)
	}},
	{"reset_genesis_classes", func(ctx context.Context, c *call) (settings.Spot, error) { return c.h.ops.ResetGenesisClasses(ctx) }},
}

func runActionSpotPolicy(ctx context.Context, c *call) (string, error) {
	run, err := spotPolicyVerbs.lookup(c.args.text("action"))
	if err != nil {
		return "", err
	}
	if _, err := run(ctx, c); err != nil {
		return "", err
	}
	r, err := c.h.ops.SpotReport(ctx, 0)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Spot policy updated")
	for _, pool := range r.Pools {
		writeSpotPool(&b, pool)
	}
	b.line("Call get_spot_policy for the whole policy and the genesis table.")
	return b.String(), nil
}

func spotSetGating(ctx context.Context, c *call) (settings.Spot, error) {
	ch := settings.SpotChange{GatingEnabled: c.args.optFlag("enabled")}
	for key, into := range map[string]**int{"five_hour_threshold_pct": &ch.FiveHourTargetPct,
		"weekly_threshold_pct": &ch.WeeklyTargetPct, "max_concurrent_sessions": &ch.MaxConcurrent} {
		if v := c.args.optInt(key); v != nil {
			n := int(*v)
			*into = &n
		}
	}
	if ch.GatingEnabled == nil && ch.FiveHourTargetPct == nil && ch.WeeklyTargetPct == nil && ch.MaxConcurrent == nil {
		return settings.Spot{}, fail("Nothing to change: pass enabled, five_hour_threshold_pct, weekly_threshold_pct or max_concurrent_sessions")
	}
	return c.h.ops.UpdateSpotPolicy(ctx, ch)
}

func spotMoveGenesis(ctx context.Context, c *call, to session.Class) (settings.Spot, error) {
	g := c.args.text("genesis")
	if g == "" {
		return settings.Spot{}, required("genesis", c.args.text("action"), fmt.Sprintf(" Pass one of %v.", session.SettableGeneses))
	}
	return c.h.ops.SetGenesisClass(ctx, session.Genesis(g), to)
}
