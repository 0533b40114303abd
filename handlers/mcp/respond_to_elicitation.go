package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func respondToElicitationTool() *toolDef {
	return &toolDef{name: "respond_to_elicitation", group: groupSessions, write: true, full: variant{
		description: "Answer a pending elicitation (an MCP server asking a session's agent for input): accept with " +
			"content, decline, or cancel. The blocked session resumes with the answer.",
		schema: newSchema(fields{
			"request_id":  str("The elicitation's public request id, or its numeric id."),
			"action_type": str("How to answer.").enum(session.ElicitationActions...),
			"content":     object("The answer (accept only): a JSON object matching the requested schema."),
		}, "request_id", "action_type"),
		run: runRespondToElicitation,
	}}
}

var elicitationHeadings = map[string]string{"accept": "Accepted", "decline": "Declined", "cancel": "Cancelled"}

func runRespondToElicitation(ctx context.Context, c *call) (string, error) {
	key := c.args.text("request_id")
	e, err := c.h.ops.RespondElicitation(ctx, key, c.args.text("action_type"), c.args.object("content"))
	var ve *orchestrator.ValidationError
	switch {
	case errors.Is(err, orchestrator.ErrElicitationNotFound):
		return "", fail("Elicitation not found for: %s", key)
	case errors.As(err, &ve) && ve.Label == orchestrator.ElicitationResolved:
		return "", fail("Elicitation has already been resolved (%s)", strings.Join(ve.Messages, ", "))
	case err != nil:
		return "", err
	}
	var b doc
	b.heading(2, "Elicitation "+elicitationHeadings[string(e.Status)])
	b.field("Request ID", e.RequestID)
	b.field("Action", e.Status)
	if e.Response != nil {
		b.blank()
		b.line("**Content:**")
		b.fence("json", prettyJSON(e.Response))
	}
	return b.String(), nil
}
