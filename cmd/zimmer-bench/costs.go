package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

// costRowsPerSession is how many ledger rows each session under the measured router spent.
const costRowsPerSession = 3

// benchBlocks are the prompt blocks each session under the measured router had injected: the
// two Zimmer injects (provenance.Blocks).
var benchBlocks = []graph.InjectedBlock{{Block: provenance.BlockHierarchy, Bytes: 2400, Tokens: 600},
	{Block: provenance.BlockHumanMessages, Bytes: 800, Tokens: 200}}

// costRollup measures the hierarchy cost roll-up as get_costs with include_descendants (and
// GET /costs?include_descendants=true) computes it: the whole report over the first wide
// router and every session it spawned, from the session check to the priced top sessions.
// Each of its sessions gets a few ledger rows and injected block tallies first (once per fleet:
// a fleet kept between runs keeps them).
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
	cat, err := catalog.Load("")
	if err != nil {
		return fmt.Errorf("load the built-in catalog: %w", err)
	}
	// The report never enqueues, so the service gets no job queue.
	ops := orchestrator.New(orchestrator.Deps{Store: store, Catalog: cat, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	q := orchestrator.CostQuery{Days: 7, SessionID: router, IncludeDescendants: true}
	// Every session under the router also had Zimmer's blocks injected into its turns, as a
	// working fleet's sessions have, so the roll-up sums those too.
	if r, err := ops.Costs(ctx, q); err != nil {
		return err
	} else if len(r.InjectedBlocks) == 0 {
		at := time.Now().UTC().Add(-24 * time.Hour)
		for id := router; id <= last; id++ {
			if err := store.RecordInjectedBlocks(ctx, id, "claude-opus-4-5", at, benchBlocks); err != nil {
				return err
			}
			if (id-router)%500 == 0 {
				progress("injected block tallies", int(id-router), f.wideSize)
			}
		}
		fmt.Fprintln(os.Stderr)
	}
	rollup := func() error {
		r, err := ops.Costs(ctx, q)
		if err == nil && r.Totals.Sessions != f.wideSize+1 {
			err = fmt.Errorf("the roll-up of #%d found %d sessions that spent, want %d", router, r.Totals.Sessions, f.wideSize+1)
		}
		if err == nil && len(r.InjectedBlocks) != len(benchBlocks) {
			err = fmt.Errorf("the roll-up of #%d found %d injected blocks, want %d", router, len(r.InjectedBlocks), len(benchBlocks))
		}
		for _, b := range r.InjectedBlocks {
			if err == nil && b.Occurrences != int64(f.wideSize+1) {
				err = fmt.Errorf("the roll-up of #%d found %s sent %d times, want %d", router, b.Block, b.Occurrences, f.wideSize+1)
			}
		}
		return err
	}
	time1(samples/4, rollup) // warm the page cache and the plan
	report(out, fmt.Sprintf("cost roll-up (get_costs), router of %d children (%d ledger rows, %d block tallies)", f.wideSize,
		(f.wideSize+1)*costRowsPerSession, (f.wideSize+1)*len(benchBlocks)),
		time1(samples, rollup))
	return nil
}
