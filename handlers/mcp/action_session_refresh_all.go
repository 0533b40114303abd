package mcp

import (
	"context"
	"fmt"
)

// actRefreshAll walks the fleet: restarts failed sessions, continues idle ones no human
// paused, re-reads the others' transcripts (see orchestrator.RefreshAll).
func actRefreshAll(ctx context.Context, a *actionCall) (string, error) {
	r, err := a.h.ops.RefreshAll(ctx)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "All Sessions Refreshed")
	b.field("Refreshed", len(r.Refreshed))
	b.field("Restarted", len(r.Restarted))
	b.field("Continued", len(r.Continued))
	b.field("Errors", len(r.Errors))
	for _, p := range r.Errors {
		b.line(fmt.Sprintf("  - #%d: %s", p.SessionID, oneLine(p.Reason)))
	}
	b.blank()
	b.line(r.Message() + ".")
	b.fence("json", prettyJSON(r))
	return b.String(), nil
}
