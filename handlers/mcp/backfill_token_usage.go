package mcp

import "context"

// healthBackfill starts the sweep of every transcript into the token ledger, or joins the one
// in flight; never throttled.
func healthBackfill(ctx context.Context, c *call) (string, error) {
	run, joined, err := c.h.ops.BackfillTokenUsage(ctx, c.recoveryActor())
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Token Usage Backfill Queued")
	if joined {
		b.linef("A sweep is already running (run %d, started %s by %s); this joins it.", run.Run, run.StartedAt.Format("2006-01-02 15:04 UTC"), oneLine(run.Trigger))
	} else {
		b.linef("Sweep %d started over %d transcripts. get_costs shows its progress under Partial history until it finishes.", run.Run, run.FilesTotal)
	}
	b.fence("json", prettyJSON(run))
	return b.String(), nil
}
