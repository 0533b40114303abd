package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func searchGateDecisionsTool() *toolDef {
	return &toolDef{name: "search_gate_decisions", group: groupGateDecisions, full: variant{
		description: "Search the gate decision ledger, newest first — e.g. \"the last 10 holds on this surface\" is " +
			"surface=<surface>, decision=hold, limit=10 — instead of loading the whole ledger to calibrate one rating. " +
			"query matches a case-insensitive phrase in the surface, decision, rationale and details. Each decision shows " +
			"the human's correction when there is one; get_gate_decision_feedback lists only the corrected ones.",
		schema: newSchema(paging(fields{
			"query":    str("Text to match in the decisions."),
			"surface":  str("Only decisions on this surface."),
			"decision": str("Only this decision (e.g. hold, pass)."),
			"limit":    integer("At most this many, newest first (the page size; overrides per_page).").min(1).max(100),
		})),
		run: runSearchGateDecisions,
	}}
}

func runSearchGateDecisions(ctx context.Context, c *call) (string, error) {
	q := orchestrator.GateSearch{Surface: c.args.text("surface"), Decision: c.args.text("decision"), Text: c.args.text("query"),
		Page: intOr(c.args, "page", 1), PerPage: intOr(c.args, "limit", intOr(c.args, "per_page", orchestrator.DefaultPerPage))}
	list, total, err := c.h.ops.SearchGateDecisions(ctx, q)
	if err != nil {
		return "", err
	}
	return renderGateList("Gate Decisions", "No gate decision matches.", q, list, total), nil
}

// renderGateList is one page of decisions, each with its human correction when it has one.
func renderGateList(heading, none string, q orchestrator.GateSearch, list []session.GateDecision, total int) string {
	pages := max(1, (total+q.PerPage-1)/q.PerPage)
	var b doc
	b.heading(2, fmt.Sprintf("%s (%d total, page %d of %d)", heading, total, q.Page, pages))
	if len(list) == 0 {
		b.line(none)
	}
	for _, d := range list {
		b.heading(3, fmt.Sprintf("#%d · %s on %s", d.ID, oneLine(d.Decision), oneLine(d.Surface)))
		renderGateDecision(&b, d)
		if d.HumanFeedback != "" {
			b.field("Human feedback", preview(d.HumanFeedback, 2000))
			b.field("Feedback by", fmt.Sprintf("%s at %s", d.FeedbackBy, optTimestamp(d.FeedbackAt)))
		}
	}
	if q.Page < pages {
		b.blank()
		b.linef("*More decisions available. Use page=%d to see the next page.*", q.Page+1)
	}
	return b.String()
}
