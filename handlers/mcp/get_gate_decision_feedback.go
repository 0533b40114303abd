package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
)

func getGateDecisionFeedbackTool() *toolDef {
	return &toolDef{name: "get_gate_decision_feedback", group: groupGateDecisions, full: variant{
		description: "Read the human corrections recorded against gate decisions, newest decision first: what a human " +
			"said a rating should have been. Read them before rating a surface again.",
		schema: newSchema(paging(fields{
			"decision_id": integer("One decision's feedback.").min(1),
			"surface":     str("Only feedback on this surface."),
		})),
		run: runGetGateDecisionFeedback,
	}}
}

func runGetGateDecisionFeedback(ctx context.Context, c *call) (string, error) {
	id, _ := c.args.integer("decision_id")
	if id != 0 {
		d, err := c.h.ops.GateDecision(ctx, id)
		if err != nil {
			return "", err
		}
		if d.HumanFeedback == "" {
			return fmt.Sprintf("## Gate Decision Feedback\n\nDecision #%d (%s on %s) has no human feedback yet.", d.ID, oneLine(d.Decision), oneLine(d.Surface)), nil
		}
	}
	q := orchestrator.GateSearch{ID: id, Surface: c.args.text("surface"), WithFeedback: true,
		Page: intOr(c.args, "page", 1), PerPage: intOr(c.args, "per_page", orchestrator.DefaultPerPage)}
	list, total, err := c.h.ops.SearchGateDecisions(ctx, q)
	if err != nil {
		return "", err
	}
	return renderGateList("Gate Decision Feedback", "No human feedback has been recorded yet.", q, list, total), nil
}
