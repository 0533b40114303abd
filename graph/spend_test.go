package graph_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

// dayReport is a session's own report for one UTC day as the cost reports read it: from its
// summary.
func dayReport(t *testing.T, store *graph.Store, id int64, day time.Time) graph.Spend {
	t.Helper()
	spend, err := store.Spend(context.Background(), graph.CostScope{FromDay: day, ToDay: day.AddDate(0, 0, 1), SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	return spend
}

// spentOn is a session's own spend on day as the cost reports read it.
func spentOn(t *testing.T, store *graph.Store, id int64, day time.Time) (session.TokenCounts, int64) {
	t.Helper()
	return foldRows(dayReport(t, store, id, day).Rows)
}

// ledgerOn is the same spend summed from the ledger's rows themselves.
func ledgerOn(t *testing.T, store *graph.Store, id int64, day time.Time) (session.TokenCounts, int64) {
	t.Helper()
	rows, err := store.SessionTokenUsage(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var sum session.TokenCounts
	var calls int64
	for _, r := range rows {
		if r.CalledAt.UTC().Truncate(24 * time.Hour).Equal(day) {
			sum, calls = sum.Add(r.TokenCounts), calls+1
		}
	}
	return sum, calls
}

func usage(id string, model string, at time.Time, stamped bool, input int64) session.TokenUsage {
	return session.TokenUsage{RequestID: id, Model: model, AgentRoot: "zimmer", CalledAt: at, Stamped: stamped,
		TokenCounts: session.TokenCounts{InputTokens: input, OutputTokens: input / 10, CacheCreationTokens: 30, CacheCreation1hTokens: 30}}
}

// TestTheSpendSummariesFollowTheLedger: whatever is recorded — new rows, a stamp that moves a
// row to the day its request was made, the same rows read again, a fork's copy of its
// source's rows — the summaries a report reads say what the ledger says, day by day.
func TestTheSpendSummariesFollowTheLedger(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	src := graphtest.Session(t, store, nil)
	fork := graphtest.Session(t, store, nil)
	flushed := time.Now().UTC().Truncate(24 * time.Hour).Add(-10 * time.Hour) // yesterday, when Zimmer read the rows
	made := flushed.Add(-30 * time.Hour)                                      // the day before, when the requests were made
	id := func(i int) string { return graphtest.Unique(t, fmt.Sprintf("req%d", i)) }
	ids := []string{id(0), id(1), id(2)}
	days := []time.Time{made.Truncate(24 * time.Hour), flushed.Truncate(24 * time.Hour)}
	for _, step := range []struct {
		name    string
		session int64
		rows    []session.TokenUsage
	}{
		{"rows recorded at flush time", src.ID, []session.TokenUsage{usage(ids[0], "claude-opus-4-5", flushed, false, 1000),
			usage(ids[1], "claude-haiku-4-5", flushed, false, 2000)}},
		{"the transcript's own times move one row a day back", src.ID, []session.TokenUsage{usage(ids[0], "claude-opus-4-5", made, true, 1000)}},
		{"a new row on the earlier day", src.ID, []session.TokenUsage{usage(ids[2], "claude-opus-4-5", made.Add(time.Minute), true, 500)}},
		{"the same rows read again", src.ID, []session.TokenUsage{usage(ids[0], "claude-opus-4-5", made, true, 1000),
			usage(ids[1], "claude-haiku-4-5", flushed, false, 2000), usage(ids[2], "claude-opus-4-5", made.Add(time.Minute), true, 500)}},
		{"a fork reads its source's rows", fork.ID, []session.TokenUsage{usage(ids[0], "claude-opus-4-5", made, true, 1000),
			usage(ids[1], "claude-haiku-4-5", flushed, true, 2000)}},
	} {
		if _, err := store.RecordTokenUsage(ctx, step.session, step.rows); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{src.ID, fork.ID} {
			for _, day := range days {
				gotT, gotCalls := spentOn(t, store, id, day)
				wantT, wantCalls := ledgerOn(t, store, id, day)
				if gotT != wantT || gotCalls != wantCalls {
					t.Errorf("after %s: #%d on %s reports %+v in %d calls, the ledger holds %+v in %d", step.name, id, day.Format(time.DateOnly),
						gotT, gotCalls, wantT, wantCalls)
				}
			}
		}
	}
	if _, calls := spentOn(t, store, src.ID, days[0]); calls != 2 {
		t.Errorf("the source's earlier day holds %d calls, want 2 (the moved row and the new one)", calls)
	}
}

// TestConcurrentWritersOfOneSessionLoseNoSpend: flushes of one session's day that commit at
// the same time each re-sum the day; the last to commit must see every row.
func TestConcurrentWritersOfOneSessionLoseNoSpend(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	at := time.Now().UTC().Add(-time.Minute)
	const writers, rowsEach = 8, 5
	var writes []func() error
	for w := range writers {
		writes = append(writes, func() error {
			rows := make([]session.TokenUsage, rowsEach)
			for i := range rows {
				rows[i] = usage(graphtest.Unique(t, fmt.Sprintf("w%d-%d", w, i)), "claude-opus-4-5", at, true, 100)
			}
			_, err := store.RecordTokenUsage(ctx, s.ID, rows)
			return err
		})
	}
	graphtest.Concurrently(t, writes...)
	day := at.Truncate(24 * time.Hour)
	if got, calls := spentOn(t, store, s.ID, day); calls != writers*rowsEach || got.InputTokens != writers*rowsEach*100 {
		t.Errorf("the day reports %d calls and %d input tokens, want %d and %d", calls, got.InputTokens, writers*rowsEach, writers*rowsEach*100)
	}
}

// TestAStampRacingTheFirstWriteOfItsRowLeavesNoStaleDay: the runner records a request at
// flush time while a re-read of the transcript stamps the same request onto the day it was
// made; whichever commits second, the flush day must not keep counting the moved row.
func TestAStampRacingTheFirstWriteOfItsRowLeavesNoStaleDay(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	flushed := time.Now().UTC().Truncate(24 * time.Hour).Add(time.Minute)
	made := flushed.Add(-25 * time.Hour)
	for i := range 10 {
		id := graphtest.Unique(t, fmt.Sprintf("race%d", i))
		var wg sync.WaitGroup
		for _, u := range []session.TokenUsage{usage(id, "claude-opus-4-5", flushed, false, 100), usage(id, "claude-opus-4-5", made, true, 100)} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{u}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	for _, day := range []time.Time{made.Truncate(24 * time.Hour), flushed.Truncate(24 * time.Hour)} {
		gotT, gotCalls := spentOn(t, store, s.ID, day)
		wantT, wantCalls := ledgerOn(t, store, s.ID, day)
		if gotT != wantT || gotCalls != wantCalls {
			t.Errorf("%s reports %d calls, the ledger holds %d", day.Format(time.DateOnly), gotCalls, wantCalls)
		}
	}
}

// TestEachMigrationRebuildsWhatAnOlderZimmerLacked: a session that spent under an older Zimmer
// (without the daily summaries, with them but without its cost summary, or with a summary in
// the first format) is whole in the reports once the migration has run, and the migration is
// marked done.
func TestEachMigrationRebuildsWhatAnOlderZimmerLacked(t *testing.T) {
	for _, tc := range []struct{ name, migration, left string }{
		{"no daily summaries", "spend_days", `MATCH (d:SpendDay {session_id: $id}) DETACH DELETE d
			WITH count(*) AS deleted MATCH (s:Session {id: $id}) REMOVE s.cost_summary, s.cost_first_day, s.cost_last_day`},
		{"no cost summary", "cost_summaries_v2", `MATCH (s:Session {id: $id}) REMOVE s.cost_summary, s.cost_first_day, s.cost_last_day`},
		// The first format, on a node of its own: version 1, the session id, no spend rows, no
		// tallies. The session's own summary is not there yet.
		{"a cost summary of the first format", "cost_summaries_v2", `MATCH (s:Session {id: $id})
			REMOVE s.cost_summary, s.cost_first_day, s.cost_last_day
			CREATE (s)-[:COST_SUMMARY]->(:CostSummary {session_id: $id, packed: $first_format, first_day: 0, last_day: 100000})`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := graphtest.Store(t)
			ctx := context.Background()
			s := graphtest.Session(t, store, nil)
			at := time.Now().UTC().Add(-time.Minute)
			if _, err := store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{usage(graphtest.Unique(t, "old"), "claude-opus-4-5", at, true, 700)}); err != nil {
				t.Fatal(err)
			}
			if err := store.RecordInjectedBlocks(ctx, s.ID, "claude-opus-4-5", at, []graph.InjectedBlock{{Block: "session_hierarchy", Bytes: 400, Tokens: 100}}); err != nil {
				t.Fatal(err)
			}
			// What an older Zimmer left, and its migration not yet run.
			graphtest.Cypher(t, tc.left+` WITH count(*) AS deleted MATCH (m:Migration {name: $name}) SET m.done = false`,
				map[string]any{"id": s.ID, "name": tc.migration, "first_format": binary.AppendVarint(binary.AppendVarint([]byte{1}, s.ID), 0)})
			day := at.Truncate(24 * time.Hour)
			before, err := store.Spend(ctx, graph.CostScope{FromDay: day, ToDay: day.AddDate(0, 0, 1), SessionID: s.ID})
			if err == nil && (len(before.Rows) != 0 || len(before.Injected) != 0) {
				t.Fatalf("before migrating, the report found %+v; the summaries were not replaced", before)
			}
			if _, err := store.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			r := dayReport(t, store, s.ID, day)
			got, calls := foldRows(r.Rows)
			injected, _ := foldInjected(r.Injected)
			if calls != 1 || got.InputTokens != 700 || injected != 100 {
				t.Errorf("after migrating: %d calls, %d input and %d injected tokens; want 1, 700 and 100", calls, got.InputTokens, injected)
			}
			if !migrationDone(t, tc.migration) {
				t.Error("the migration is not marked done: every start would run it again")
			}
			if res := graphtest.Query(t, `MATCH (:Session {id: $id})-[:COST_SUMMARY]->(c) RETURN c`, map[string]any{"id": s.ID}); len(res.Records) != 0 {
				t.Error("a summary node of the old layout outlived the migration")
			}
		})
	}
}

// migrationDone says the migration's one marker says it is done.
func migrationDone(t *testing.T, name string) bool {
	t.Helper()
	res := graphtest.Query(t, `MATCH (m:Migration {name: $name}) RETURN m.done AS done`, map[string]any{"name": name})
	if len(res.Records) != 1 {
		t.Fatalf("%d markers of migration %s, want 1", len(res.Records), name)
	}
	done, _ := res.Records[0].Get("done")
	return done == true
}
