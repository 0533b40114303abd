package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// costRowsPerSession is how many ledger rows each session under the measured router spent.
const costRowsPerSession = 3

// costRollup measures the hierarchy cost roll-up (get_costs include_descendants, GET /costs
// ?include_descendants=true): one statement summing the spend of the first wide router and
// every session it spawned. Each of its sessions gets a few ledger rows first (once per
// fleet: a fleet kept between runs keeps them).
func costRollup(ctx context.Context, store *graph.Store, f *fleet, samples int, out io.Writer) error {
	router := f.wide[0]
	last := router + int64(f.wideSize)
	if rows, err := store.SessionTokenUsage(ctx, last); err != nil {
		return err
	} else if len(rows) == 0 {
		at := time.Now().UTC().Add(-24 * time.Hour)
		for id := router; id <= last; id++ {
			rows := make([]session.TokenUsage, costRowsPerSession)
			for i := range rows {
				rows[i] = session.TokenUsage{RequestID: fmt.Sprintf("bench-%d-%d", id, i), Model: []string{"claude-opus-4-5", "claude-haiku-4-5"}[i%2],
					AgentRoot: "zimmer", CalledAt: at.Add(time.Duration(i) * time.Minute),
					TokenCounts: session.TokenCounts{InputTokens: 1200, OutputTokens: 300, CacheReadTokens: 40_000, CacheCreationTokens: 900}}
			}
			if _, err := store.RecordTokenUsage(ctx, id, rows); err != nil {
				return err
			}
			if (id-router)%500 == 0 {
				progress("ledger rows", int(id-router), f.wideSize)
			}
		}
		fmt.Fprintln(os.Stderr)
	}
	scope := graph.CostScope{From: time.Now().AddDate(0, 0, -7), To: time.Now().Add(time.Hour), SessionID: router, Descendants: true, BySession: true}
	rollup := func() error {
		rows, err := store.CostRows(ctx, scope)
		if err == nil && len(rows) == 0 {
			err = fmt.Errorf("the roll-up of #%d found no spend", router)
		}
		return err
	}
	time1(samples/4, rollup) // warm the page cache and the plan
	report(out, fmt.Sprintf("cost roll-up, router of %d children (%d ledger rows)", f.wideSize, (f.wideSize+1)*costRowsPerSession),
		time1(samples, rollup))
	return nil
}
