package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

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
	r := dayReport(t, store, s.ID, at.Truncate(24*time.Hour))
	total, calls := foldRows(r.Rows)
	injected, occurrences := foldInjected(r.Injected)
	if calls != flushes || total.InputTokens != flushes*100 {
		t.Errorf("the summary holds %d calls and %d input tokens, want %d and %d", calls, total.InputTokens, flushes, flushes*100)
	}
	if injected != 2*turns*10 || occurrences != 2*turns {
		t.Errorf("the summary holds %d injected tokens in %d blocks sent, want %d in %d", injected, occurrences, 2*turns*10, 2*turns)
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

// TestAReportSkipsTheSummariesOfSessionsIdleThroughItsWindow: over a long-lived hierarchy, a
// report does not read the summary of a session whose days all fall before or after its window
// (a day on the window's first day counts, one on the day it ends does not), and what it reads
// it reports over the window's days only.
func TestAReportSkipsTheSummariesOfSessionsIdleThroughItsWindow(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	top := -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	old, busy, fresh := top, top+1, top+2 // old spent ten days ago; busy then and today; fresh only had blocks injected today
	sessions := []graph.ImportSession{{ID: top, Title: "router", Status: "running", Genesis: "api"}}
	for _, id := range []int64{busy, fresh} {
		sessions = append(sessions, graph.ImportSession{ID: id, Title: "child", Status: "running", Genesis: "api"})
	}
	if err := store.ImportSessions(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	if err := store.ImportEdges(ctx, []graph.ImportEdge{{From: top, To: busy}, {From: top, To: fresh}}, nil); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	then := today.AddDate(0, 0, -10)
	for _, u := range []struct {
		id int64
		at time.Time
	}{{old, then}, {busy, then}, {busy, today}} {
		if _, err := store.RecordTokenUsage(ctx, u.id, []session.TokenUsage{usage(graphtest.Unique(t, fmt.Sprint(u.id, u.at.Day())), "claude-opus-4-5", u.at.Add(time.Hour), true, 100)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.RecordInjectedBlocks(ctx, fresh, "claude-opus-4-5", today.Add(time.Hour), []graph.InjectedBlock{{Block: "session_hierarchy", Bytes: 40, Tokens: 10}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		from, to     time.Time
		readSessions int64
		calls        int64
		injected     int64
	}{
		{"today", today, today.AddDate(0, 0, 1), 2, 1, 10},
		{"ten days ago", then, then.AddDate(0, 0, 1), 2, 2, 0},
		// busy's days straddle this window: its summary is read, and yields nothing.
		{"between", then.AddDate(0, 0, 1), today, 1, 0, 0},
		{"both", then, today.AddDate(0, 0, 1), 3, 3, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spend, err := store.Spend(ctx, graph.CostScope{FromDay: tc.from, ToDay: tc.to, SessionID: top, Descendants: true})
			if err != nil {
				t.Fatal(err)
			}
			_, calls := foldRows(spend.Rows)
			injected, _ := foldInjected(spend.Injected)
			if calls != tc.calls || injected != tc.injected {
				t.Errorf("%d calls and %d injected tokens, want %d and %d", calls, injected, tc.calls, tc.injected)
			}
			res := graphtest.Query(t, "PROFILE "+queries.CostSummaries, map[string]any{"session_id": top, "agent_root": "", "descendants": true,
				"from_day": tc.from.Unix() / 86400, "to_day": tc.to.Unix() / 86400})
			if read := collected(res.Summary.Profile()); read != tc.readSessions {
				t.Errorf("read %d summaries, want %d; the plan:\n%s", read, tc.readSessions, planText(res.Summary.Profile(), ""))
			}
		})
	}
}

// collected is how many rows the statement's final aggregation took in.
func collected(p neo4j.ProfiledPlan) int64 {
	if p.Operator() == "EagerAggregation@neo4j" {
		var n int64
		for _, c := range p.Children() {
			n += c.Records()
		}
		return n
	}
	for _, c := range p.Children() {
		if n := collected(c); n >= 0 {
			return n
		}
	}
	return -1
}

// TestUpdatingASessionKeepsItsCostSummary: the summary is the store's, kept on the session node
// beside what the session's writers own; an update of the session, which rewrites every
// property it knows, leaves the summary as it was.
func TestUpdatingASessionKeepsItsCostSummary(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	at := time.Now().UTC()
	if _, err := store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{usage(graphtest.Unique(t, "kept"), "claude-opus-4-5", at, true, 700)}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UpdateSession(ctx, s.ID, func(u *session.Session) error { title := "renamed"; u.Title = &title; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, calls := spentOn(t, store, s.ID, at.Truncate(24*time.Hour)); calls != 1 || got.InputTokens != 700 {
		t.Errorf("after an update the report finds %d calls and %d input tokens, want 1 and 700", calls, got.InputTokens)
	}
}
