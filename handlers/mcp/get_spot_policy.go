package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func getSpotPolicyTool() *toolDef {
	return &toolDef{name: "get_spot_policy", group: groupHealth, full: variant{
		description: "The spot gate: whether spot sessions are running or held and why, the quota windows against " +
			"their targets, and the scheduling class of each genesis.",
		schema: newSchema(fields{}),
		run:    runGetSpotPolicy,
	}}
}

// spotQueueHead is how much of the ranked queue get_spot_policy shows.
const spotQueueHead = 10

func runGetSpotPolicy(ctx context.Context, c *call) (string, error) {
	r, err := c.h.ops.SpotReport(ctx, spotQueueHead)
	if err != nil {
		return "", err
	}
	p := r.Policy
	var b doc
	b.heading(2, "Spot policy")
	b.field("Gating", map[bool]string{true: "on", false: "off (spot sessions start like priority ones)"}[p.GatingEnabled])
	b.field("Targets", fmt.Sprintf("5-hour %d%%, weekly %d%%", p.FiveHourTargetPct, p.WeeklyTargetPct))
	b.field("Max sessions at once (per runtime pool)", p.MaxConcurrent)
	b.blank()
	b.heading(3, "Current decision")
	for _, pool := range r.Pools {
		writeSpotPool(&b, pool)
	}
	b.blank()
	b.heading(3, "Genesis classes")
	for _, g := range session.Geneses {
		class := string(p.GenesisClasses.Of(g))
		if p.GenesisClasses.Changed(g) {
			class += fmt.Sprintf(" (changed from %s)", g.DefaultClass())
		}
		via := "its trigger's scheduling_class"
		if g.Settable() {
			via = "action_spot_policy"
		}
		b.linef("- `%s`: %s — set it via %s", g, class, via)
	}
	b.blank()
	b.heading(3, fmt.Sprintf("Ranked spot queue (%d waiting)", r.QueueTotal))
	if len(r.Queue) == 0 {
		b.line("_Nothing waits in the spot queue._")
	}
	for i, s := range r.Queue {
		b.linef("%d. #%d %s — precedence %d, %s", i+1, s.ID, oneLine(s.DisplayTitle()), s.Precedence, queueState(s))
	}
	if r.QueueTotal > len(r.Queue) {
		b.linef("…and %d more", r.QueueTotal-len(r.Queue))
	}
	return b.String(), nil
}

func writeSpotPool(b *doc, pool orchestrator.SpotPool) {
	d := pool.Decision
	state := "running"
	if !d.Admit {
		state = "HELD"
	}
	b.linef("- **%s:** spot sessions are %s (`%s`): %s", pool.Runtime, state, d.Reason, d.Detail)
	line := fmt.Sprintf("  running %d", d.Running)
	if pool.Leaving > 0 {
		line += fmt.Sprintf(", %d spot sessions parked mid-run (leaving at the end of their turn)", pool.Leaving)
	}
	if r := d.Reading; r != nil {
		line += fmt.Sprintf("; 5-hour %.0f%%, weekly %.0f%% (%s)", r.FiveHourPct, r.WeeklyPct, r.Source)
	} else {
		line += "; no utilization reading"
	}
	b.line(line)
}

// queueState says why a queued session waits.
func queueState(s *session.Session) string {
	if why := session.BagString(s.Metadata, session.MetaSpotHoldReason); why != "" {
		return fmt.Sprintf("held at its first start (%s), asked again at %s", why, session.BagString(s.Metadata, session.MetaSpotHoldRetryAt))
	}
	return "parked since " + session.BagString(s.Metadata, session.MetaSpotQueuedAt)
}
