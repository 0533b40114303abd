package mcp

import (
	"context"

	"github.com/zimmerhq/zimmer/provenance"
)

func getSessionProvenanceTool() *toolDef {
	return &toolDef{name: provenance.ToolName, group: groupSessions, composites: []string{compositeSelf}, full: variant{
		description: provenance.ToolDescription + " session_id defaults to this connection's session.",
		schema: newSchema(fields{
			"session_id": sessionRef("The session: id or slug (defaults to this connection's session)."),
		}),
		run: runGetSessionProvenance,
	}}
}

func runGetSessionProvenance(ctx context.Context, c *call) (string, error) {
	id, err := c.selfID(ctx, "session_id")
	if err != nil {
		return "", err
	}
	rec, err := c.h.ops.Provenance(ctx, id)
	if err != nil {
		return "", sessionNotFound(err, id)
	}
	return provenance.SessionProvenance(rec), nil
}
