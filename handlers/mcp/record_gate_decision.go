package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func recordGateDecisionTool() *toolDef {
	return &toolDef{name: "record_gate_decision", group: groupGateDecisions, write: true, full: variant{
		description: "Record one gate decision in the ledger, stamped with the recording session from this connection. " +
			"human_feedback is never written from here: it is scrubbed out of every entry, at any depth, and the receipt " +
			"says what was dropped; only a human writes it, in the browser.",
		schema: recordGateSchema,
		run:    runRecordGateDecision,
	}}
}

var recordGateSchema = newSchema(fields{
	"session_id": sessionRef("The session the decision is about: id or slug."),
	"surface":    str("The gated surface.").maxLen(session.MaxGateField),
	"decision":   str("The decision (e.g. hold, pass).").maxLen(session.MaxGateField),
	"rationale":  str("Why.").maxLen(session.MaxGateRationale),
	"details":    object("Anything else worth keeping."),
}, "surface", "decision")

func runRecordGateDecision(ctx context.Context, c *call) (string, error) {
	r := orchestrator.GateRecord{Surface: c.args.text("surface"), Decision: c.args.text("decision"),
		Rationale: c.args.text("rationale"), Details: c.args.object("details"), Extra: map[string]any{}}
	for k, v := range c.args {
		if _, known := recordGateSchema.props[k]; !known {
			r.Extra[k] = v
		}
	}
	if key := c.args.text("session_id"); key != "" {
		id, err := c.resolve(ctx, key)
		if err != nil {
			return "", err
		}
		r.SessionID = &id
	}
	if c.scope.SessionID != 0 {
		recorder, err := c.sessionByID(ctx, c.scope.SessionID)
		if err != nil {
			return "", err
		}
		r.RecordedBy, r.RecordedByRoot = &recorder.ID, recorder.AgentRoot()
	}
	out, err := c.h.ops.RecordGateDecision(ctx, r)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Gate Decision Recorded")
	renderGateDecision(&b, out.Decision)
	b.blank()
	if len(out.Dropped) > 0 {
		b.linef("⚠️ human_feedback was dropped from what you sent (at %s) and none of it was stored: only a human writes human feedback, in the browser.",
			strings.Join(out.Dropped, ", "))
	} else {
		b.line("human_feedback is never written from here: only a human writes it, in the browser.")
	}
	return b.String(), nil
}

// renderGateDecision is a decision's fields, the same in every ledger tool's output.
func renderGateDecision(b *doc, d session.GateDecision) {
	b.field("Decision ID", d.ID)
	b.field("Surface", d.Surface)
	b.field("Decision", d.Decision)
	if d.SessionID != nil {
		b.field("Session", fmt.Sprintf("#%d", *d.SessionID))
	}
	switch {
	case d.RecordedBy != nil && d.RecordedByRoot != "":
		b.field("Recorded by", fmt.Sprintf("session #%d (agent root %s)", *d.RecordedBy, d.RecordedByRoot))
	case d.RecordedBy != nil:
		b.field("Recorded by", fmt.Sprintf("session #%d", *d.RecordedBy))
	}
	b.field("Recorded at", timestamp(d.CreatedAt))
	b.optField("Rationale", preview(d.Rationale, 1000))
	if len(d.Details) > 0 {
		b.field("Details", preview(prettyJSON(d.Details), 500))
	}
}
