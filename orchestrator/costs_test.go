package orchestrator_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

func idleSession(t *testing.T, ops *orchestrator.Service) *session.Session {
	t.Helper()
	out, err := ops.Create(context.Background(), orchestrator.CreateParams{AgentRoot: &generalAgent})
	if err != nil {
		t.Fatal(err)
	}
	return out.Session
}

func TestTheCostReportPricesTheLedgerOverItsWindowAndNamesUnpricedModels(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	s := idleSession(t, e.Ops)
	now := time.Now().UTC()
	yesterday := now.AddDate(0, 0, -1)
	if _, err := e.Store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{
		{RequestID: graphtest.Unique(t, "opus"), Model: "claude-opus-4-5", AgentRoot: generalAgent, CalledAt: yesterday,
			TokenCounts: session.TokenCounts{InputTokens: 1_000_000, OutputTokens: 1_000_000, WebSearchRequests: 100}},
		{RequestID: graphtest.Unique(t, "gpt"), Model: "gpt-5-codex", AgentRoot: generalAgent, CalledAt: now,
			TokenCounts: session.TokenCounts{InputTokens: 1000}},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := e.Ops.Costs(ctx, orchestrator.CostQuery{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Totals.ListPrice-31) > 1e-9 || r.Totals.Calls != 2 || r.Totals.Sessions != 1 {
		t.Errorf("totals: %+v, want $31 (opus $5 + $25 + 100 searches at $10 per thousand) in 2 calls", r.Totals)
	}
	if !slices.Equal(r.UnpricedModels, []string{"gpt-5-codex"}) {
		t.Errorf("unpriced models: %v", r.UnpricedModels)
	}
	if len(r.ByDay) != 2 || len(r.ByModel) != 2 || r.ByModel[0].Key != "claude-opus-4-5" || len(r.TopSessions) != 1 || r.TopSessions[0].SessionID != s.ID {
		t.Errorf("breakdowns: days %+v models %+v top %+v", r.ByDay, r.ByModel, r.TopSessions)
	}
	if !r.LedgerCoverage.Partial || r.Window.Label != "the last 7 days" {
		t.Errorf("a ledger never swept is partial history: %+v, window %+v", r.LedgerCoverage, r.Window)
	}

	today, err := e.Ops.Costs(ctx, orchestrator.CostQuery{SessionID: s.ID, From: now.Format(time.DateOnly), To: "not a date"})
	if err != nil || today.Totals.Calls != 1 || today.Totals.ListPrice != 0 || today.Window.To != now.Format(time.DateOnly) {
		t.Errorf("from today (an unparseable to is today): %+v, %v", today, err)
	}
	var nf *orchestrator.NotFoundError
	if _, err := e.Ops.Costs(ctx, orchestrator.CostQuery{SessionID: 1 << 60}); !errors.As(err, &nf) && !errors.Is(err, orchestrator.ErrNotFound) {
		t.Errorf("a session that does not exist: %v", err)
	}
	root, err := e.Ops.Costs(ctx, orchestrator.CostQuery{AgentRoot: graphtest.Unique(t, "nobody"), Days: 3})
	if err != nil || root.Totals.Calls != 0 || root.Window.Label != "the last 3 days" {
		t.Errorf("an agent root with no spend: %+v, %v", root, err)
	}
}

// TestTheTopSessionsAreTheDearestAtListPrice: the report ranks a hierarchy's sessions by what
// they cost at list price, not by their tokens.
func TestTheTopSessionsAreTheDearestAtListPrice(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	top := -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	sessions := []graph.ImportSession{{ID: top, Title: "router", Status: "running", Genesis: "api", AgentRoot: generalAgent}}
	var spawns []graph.ImportEdge
	for i := range int64(14) {
		sessions = append(sessions, graph.ImportSession{ID: top + 1 + i, Title: "child", Status: "running", Genesis: "api", AgentRoot: generalAgent, ParentID: top})
		spawns = append(spawns, graph.ImportEdge{From: top, To: top + 1 + i})
	}
	if err := e.Store.ImportSessions(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.ImportEdges(ctx, spawns, nil); err != nil {
		t.Fatal(err)
	}
	prices, err := e.Ops.Prices()
	if err != nil {
		t.Fatal(err)
	}
	// Haiku sessions spend more tokens, Opus sessions more money; a model without a rate costs
	// only its web searches.
	cost := map[int64]float64{}
	// Today, inside a two-day report, so a run that crosses midnight still covers it.
	at := time.Now().UTC().Truncate(24 * time.Hour).Add(time.Minute)
	for i, s := range sessions[1:] {
		model := []string{"claude-haiku-4-5", "claude-opus-4-5", "no-such-model"}[i%3]
		c := session.TokenCounts{InputTokens: int64(1000 * (i + 1)), OutputTokens: 500, CacheCreationTokens: 400, CacheCreation5mTokens: 100,
			WebSearchRequests: int64(i % 4)}
		if model == "claude-haiku-4-5" {
			c.InputTokens *= 4
		}
		if _, err := e.Store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{{RequestID: graphtest.Unique(t, fmt.Sprint(s.ID)), Model: model,
			AgentRoot: generalAgent, CalledAt: at, TokenCounts: c}}); err != nil {
			t.Fatal(err)
		}
		p, _ := prices.Price(model, c)
		cost[s.ID] = p.Total
	}
	want := slices.SortedFunc(maps.Keys(cost), func(a, b int64) int { return cmp.Compare(cost[b], cost[a]) })[:10]
	r, err := e.Ops.Costs(ctx, orchestrator.CostQuery{SessionID: top, IncludeDescendants: true, Days: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, l := range r.TopSessions {
		got = append(got, l.SessionID)
		if math.Abs(l.ListPrice-cost[l.SessionID]) > 1e-12 {
			t.Errorf("#%d at $%v, want $%v", l.SessionID, l.ListPrice, cost[l.SessionID])
		}
	}
	if !slices.Equal(got, want) || r.Totals.Sessions != 14 {
		t.Errorf("top sessions %v of %d that spent, want %v of 14", got, r.Totals.Sessions, want)
	}
}

func writeTranscript(t *testing.T, dir string, id int64, lines ...string) {
	t.Helper()
	path := transcript.Path(dir, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTheBackfillSweepsEveryTranscriptOnceAndASecondAskJoinsIt(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	a, b := idleSession(t, e.Ops), idleSession(t, e.Ops)
	turn := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	usage := func(id, stamp string) string {
		ts := ""
		if stamp != "" {
			ts = fmt.Sprintf(`"timestamp":%q,`, stamp)
		}
		return fmt.Sprintf(`{"type":"assistant",%s"message":{"id":%q,"model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":2}}}`, ts, id)
	}
	ra, rb := graphtest.Unique(t, "a"), graphtest.Unique(t, "b")
	writeTranscript(t, e.DataDir, a.ID, fmt.Sprintf(`{"type":"zimmer_turn","turn":1,"started_at":%q}`, turn.Format(time.RFC3339)),
		usage(ra+"-1", "2026-01-05T09:00:07Z"), usage(ra+"-2", "2026-01-05T09:01:00Z"), usage(ra+"-3", ""))
	writeTranscript(t, e.DataDir, b.ID, usage(rb+"-1", "2026-01-06T10:00:00Z"))
	writeTranscript(t, e.DataDir, 1<<55, usage(graphtest.Unique(t, "gone"), "2026-01-06T10:00:00Z")) // its session is gone

	run, joined, err := e.Ops.BackfillTokenUsage(ctx, "test")
	if err != nil || joined || !run.Running() || run.FilesTotal != 3 {
		t.Fatalf("start: %+v joined=%v %v", run, joined, err)
	}
	again, joined, err := e.Ops.BackfillTokenUsage(ctx, "test again")
	if err != nil || !joined || again.Run != run.Run {
		t.Fatalf("asking again joins the sweep in flight: %+v joined=%v %v", again, joined, err)
	}
	if r, err := e.Ops.Costs(ctx, orchestrator.CostQuery{SessionID: a.ID}); err != nil || !r.LedgerCoverage.Partial || !r.LedgerCoverage.Backfill.Running() {
		t.Fatalf("while the sweep runs the report is partial history: %+v %v", r.LedgerCoverage, err)
	}
	done, ran, err := e.Ops.BackfillSlice(ctx, time.Minute)
	if err != nil || !ran || done.Running() || done.FilesDone != 3 || done.SessionRows != 4 {
		t.Fatalf("one slice sweeps all three files: %+v ran=%v %v", done, ran, err)
	}
	rows, err := e.Ops.TokenUsage(ctx, a.ID)
	if err != nil || len(rows) != 3 {
		t.Fatalf("session #%d's ledger: %d rows, %v", a.ID, len(rows), err)
	}
	wantAt := []time.Time{turn, turn.Add(7 * time.Second), turn.Add(time.Minute)} // the untimed request takes its turn's start
	for i, row := range rows {
		if !row.CalledAt.Equal(wantAt[i]) || !row.Stamped {
			t.Errorf("row %d called at %s (stamped %v), want %s from the transcript", i, row.CalledAt, row.Stamped, wantAt[i])
		}
	}
	if _, ran, err := e.Ops.BackfillSlice(ctx, time.Minute); err != nil || ran {
		t.Fatalf("a finished sweep has no slice left: ran=%v %v", ran, err)
	}
	if r, err := e.Ops.Costs(ctx, orchestrator.CostQuery{SessionID: a.ID}); err != nil || r.LedgerCoverage.Partial || r.LedgerCoverage.CoversSince == nil {
		t.Fatalf("a finished sweep states the covered window: %+v %v", r.LedgerCoverage, err)
	}

	second, joined, err := e.Ops.BackfillTokenUsage(ctx, "test")
	if err != nil || joined || second.Run != run.Run+1 {
		t.Fatalf("after a sweep finished, asking starts another: %+v joined=%v %v", second, joined, err)
	}
	if _, ok, err := e.Store.ClaimBackfill(ctx, e.DataDir, time.Now().Add(time.Minute)); err != nil || !ok {
		t.Fatalf("claim the new sweep: %v %v", ok, err)
	}
	if _, ran, err := e.Ops.BackfillSlice(ctx, time.Minute); err != nil || ran {
		t.Fatalf("a slice leased to another worker is left alone: ran=%v %v", ran, err)
	}
	for _, id := range []int64{a.ID, b.ID} {
		if rows, err := e.Ops.TokenUsage(ctx, id); err != nil || len(rows) != map[int64]int{a.ID: 3, b.ID: 1}[id] {
			t.Errorf("session #%d after two sweeps: %d rows, %v", id, len(rows), err)
		}
	}
}

// The metrics' spend census labels by the price list's families and the catalog's roots, each
// with "other" for the rest, lists every label whether spent or not, and sums the last day.
func TestTheCostCensusIsBoundedByThePriceListAndTheCatalog(t *testing.T) {
	family, root := graphtest.Unique(t, "family"), graphtest.Unique(t, "root")
	dir := t.TempDir()
	for name, text := range map[string]string{
		"roots.json":  fmt.Sprintf(`{%q: {"url": "file:///tmp/nowhere"}}`, root),
		"mcp.json":    `{}`,
		"prices.json": fmt.Sprintf(`{"models": {%q: {"input": 1, "output": 2}}, "web_search_per_thousand": 10}`, family),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, CatalogDir: dir})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, nil)
	now := time.Now()
	if _, err := e.Store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{
		{RequestID: graphtest.Unique(t, "ours"), Model: "x-" + family + "-1", AgentRoot: root, CalledAt: now.Add(-time.Hour),
			TokenCounts: session.TokenCounts{InputTokens: 1_000_000}}, // $1
		{RequestID: graphtest.Unique(t, "stray"), Model: graphtest.Unique(t, "mystery"), AgentRoot: graphtest.Unique(t, "elsewhere"), CalledAt: now.Add(-time.Hour),
			TokenCounts: session.TokenCounts{WebSearchRequests: 100}}, // $1 in searches, on no family and no known root
		{RequestID: graphtest.Unique(t, "old"), Model: "x-" + family + "-1", AgentRoot: root, CalledAt: now.Add(-25 * time.Hour),
			TokenCounts: session.TokenCounts{InputTokens: 1_000_000}}, // older than a day
	}); err != nil {
		t.Fatal(err)
	}
	byModel, byRoot, err := e.Ops.CostCensus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if keys := slices.Sorted(maps.Keys(byModel)); !slices.Equal(keys, []string{family, orchestrator.Other}) {
		t.Errorf("model labels %v, want the price list's family and %q", keys, orchestrator.Other)
	}
	if keys := slices.Sorted(maps.Keys(byRoot)); !slices.Equal(keys, []string{orchestrator.Other, root}) {
		t.Errorf("root labels %v, want the catalog's root and %q", keys, orchestrator.Other)
	}
	if math.Abs(byModel[family]-1) > 1e-9 || math.Abs(byRoot[root]-1) > 1e-9 {
		t.Errorf("the last day's spend: family $%v, root $%v, want $1 each", byModel[family], byRoot[root])
	}
	if byModel[orchestrator.Other] < 1-1e-9 || byRoot[orchestrator.Other] < 1-1e-9 {
		t.Errorf("the stray request's $1 is not under %q: models %v, roots %v", orchestrator.Other, byModel, byRoot)
	}
}
