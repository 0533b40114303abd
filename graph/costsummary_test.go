package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// sessionSpend is a session's own report for the day of at: calls, input tokens, injected
// tokens and injected occurrences, as read from its cost summary.
func sessionSpend(t *testing.T, store *graph.Store, id int64, at time.Time) (calls, input, injected, occurrences int64) {
	t.Helper()
	day := at.UTC().Truncate(24 * time.Hour)
	spend, err := store.Spend(context.Background(), graph.CostScope{FromDay: day, ToDay: day.AddDate(0, 0, 1), SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	total, calls := foldRows(spend.Rows)
	for _, b := range spend.Injected {
		injected, occurrences = injected+b.Tokens, occurrences+b.Occurrences
	}
	return calls, total.InputTokens, injected, occurrences
}

// TestConcurrentTurnsAndFlushesOfOneSessionLoseNothingFromItsSummary: turns tallying injected
// blocks and flushes of the ledger, all at once on one session, each repack its one cost
// summary; none may pack over another's change.
func TestConcurrentTurnsAndFlushesOfOneSessionLoseNothingFromItsSummary(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	at := time.Now().UTC()
	const turns, flushes = 12, 6
	// Each turn tallies a block of its own, already tallied once: turns then share no tally,
	// and only the session's lock keeps one turn's repack from missing another's increment.
	turn := func(i int) error {
		return store.RecordInjectedBlocks(ctx, s.ID, "claude-opus-4-5", at, []graph.InjectedBlock{{Block: fmt.Sprintf("block-%d", i), Bytes: 40, Tokens: 10}})
	}
	for i := range turns {
		if err := turn(i); err != nil {
			t.Fatal(err)
		}
	}
	var writes []func() error
	for i := range turns {
		writes = append(writes, func() error { return turn(i) })
	}
	for i := range flushes {
		writes = append(writes, func() error {
			_, err := store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{usage(graphtest.Unique(t, fmt.Sprintf("flush%d", i)), "claude-opus-4-5", at, true, 100)})
			return err
		})
	}
	graphtest.Concurrently(t, writes...)
	calls, input, injected, occurrences := sessionSpend(t, store, s.ID, at)
	if calls != flushes || input != flushes*100 {
		t.Errorf("the summary holds %d calls and %d input tokens, want %d and %d", calls, input, flushes, flushes*100)
	}
	if injected != 2*turns*10 || occurrences != 2*turns {
		t.Errorf("the summary holds %d injected tokens in %d blocks sent, want %d in %d", injected, occurrences, 2*turns*10, 2*turns)
	}
}

// TestMigratingPacksTheSummariesOfSessionsThatSpentBeforeThem: a session with ledger rows and
// injected tallies but no cost summary (an older Zimmer's) gets one from the migration, after
// which its report is whole; the migration is then marked done.
func TestMigratingPacksTheSummariesOfSessionsThatSpentBeforeThem(t *testing.T) {
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
	graphtest.Cypher(t, `MATCH (:Session {id: $id})-[:COST_SUMMARY]->(c) DETACH DELETE c
		WITH count(*) AS deleted MATCH (m:Migration {name: 'cost_summaries'}) SET m.done = false`, map[string]any{"id": s.ID})
	if calls, _, injected, _ := sessionSpend(t, store, s.ID, at); calls != 0 || injected != 0 {
		t.Fatalf("before migrating, the report found %d calls and %d injected tokens; the summary was not removed", calls, injected)
	}
	if _, err := store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if calls, input, injected, _ := sessionSpend(t, store, s.ID, at); calls != 1 || input != 700 || injected != 100 {
		t.Errorf("after migrating: %d calls, %d input and %d injected tokens; want 1, 700 and 100", calls, input, injected)
	}
	if !migrationDone(t, "cost_summaries") {
		t.Error("the migration is not marked done: every start would read the spend again")
	}
}

// TestRepackingASummaryReadsOnlyItsSession: every flush and turn repacks its session's
// summary, so what that reads must not grow with the rest of the fleet's spend.
func TestRepackingASummaryReadsOnlyItsSession(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	// Another session with a year of daily spend: 365 SpendDay rows a scan would read.
	busy := graphtest.Session(t, store, nil)
	year := make([]session.TokenUsage, 365)
	for i := range year {
		year[i] = usage(graphtest.Unique(t, fmt.Sprint("day", i)), "claude-opus-4-5", time.Now().UTC().AddDate(0, 0, -i), true, 10)
	}
	if _, err := store.RecordTokenUsage(ctx, busy.ID, year); err != nil {
		t.Fatal(err)
	}
	s := graphtest.Session(t, store, nil)
	if _, err := store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{usage(graphtest.Unique(t, "one"), "claude-opus-4-5", time.Now(), true, 10)}); err != nil {
		t.Fatal(err)
	}
	res := graphtest.Query(t, "PROFILE "+queries.CostSummarySources, map[string]any{"session_ids": []any{s.ID}})
	if hits := dbHits(res.Summary.Profile()); hits > 100 {
		t.Errorf("repacking a session with one day of spend cost %d database hits; the plan:\n%s", hits, planText(res.Summary.Profile(), ""))
	}
}

func dbHits(p neo4j.ProfiledPlan) int64 {
	n := p.DbHits()
	for _, c := range p.Children() {
		n += dbHits(c)
	}
	return n
}
