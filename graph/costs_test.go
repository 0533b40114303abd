package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// costFleet is a generated fleet with spend: spawn trees, uncle edges across and within them,
// and ledger rows on most sessions.
type costFleet struct {
	children map[int64][]int64
	root     map[int64]string
	spend    map[int64]session.TokenCounts
	calls    map[int64]int64
	injected map[int64]int64 // injected tokens
	tops     []int64
}

// subtree is every session id reaches over spawn edges, itself included, each once.
func (f *costFleet) subtree(id int64, into map[int64]bool) {
	if into[id] {
		return
	}
	into[id] = true
	for _, c := range f.children[id] {
		f.subtree(c, into)
	}
}

func (f *costFleet) sum(ids map[int64]bool) (session.TokenCounts, int64, int64) {
	var t session.TokenCounts
	var calls, injected int64
	for id := range ids {
		t, calls, injected = t.Add(f.spend[id]), calls+f.calls[id], injected+f.injected[id]
	}
	return t, calls, injected
}

// foldInjected sums injected blocks: tokens, and times sent.
func foldInjected(rows []graph.InjectedBlockRow) (tokens, sent int64) {
	for _, b := range rows {
		tokens, sent = tokens+b.Tokens, sent+b.Occurrences
	}
	return tokens, sent
}

func foldRows(rows []graph.CostRow) (session.TokenCounts, int64) {
	var t session.TokenCounts
	var calls int64
	for _, r := range rows {
		t, calls = t.Add(r.TokenCounts), calls+r.Calls
	}
	return t, calls
}

// TestTheHierarchyRollUpIsTheSumOverTheSpawnSubtree generates a fleet, records spend on it, and
// holds the one-statement roll-up to the sum computed here: for a session, its spawn subtree;
// for an agent root, the union of its sessions' subtrees, each session once; uncle edges never
// widen either.
func TestTheHierarchyRollUpIsTheSumOverTheSpawnSubtree(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	base := -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	roots := []string{graphtest.Unique(t, "router"), graphtest.Unique(t, "worker")}
	r := rand.New(rand.NewPCG(15, 4))
	f := &costFleet{children: map[int64][]int64{}, root: map[int64]string{}, spend: map[int64]session.TokenCounts{}, calls: map[int64]int64{},
		injected: map[int64]int64{}}
	var sessions []graph.ImportSession
	var spawns, uncles []graph.ImportEdge
	next := base
	for range 12 {
		top := next
		next++
		f.tops = append(f.tops, top)
		members := []int64{top}
		sessions = append(sessions, graph.ImportSession{ID: top, Title: "top", Status: "running", Genesis: "api", AgentRoot: roots[0]})
		for range 3 + r.IntN(25) {
			p := members[r.IntN(len(members))]
			id := next
			next++
			// Workers sometimes spawn routers: an agent root's sessions nest inside each other.
			sessions = append(sessions, graph.ImportSession{ID: id, Title: "child", Status: "running", Genesis: "api", AgentRoot: roots[r.IntN(2)], ParentID: p})
			spawns = append(spawns, graph.ImportEdge{From: p, To: id})
			f.children[p] = append(f.children[p], id)
			members = append(members, id)
		}
	}
	for range 40 { // uncle edges from a lower to a higher id: acyclic, across and within trees
		a, b := base+r.Int64N(next-base), base+r.Int64N(next-base)
		if a < b {
			uncles = append(uncles, graph.ImportEdge{From: a, To: b})
		}
	}
	if err := store.ImportSessions(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	if err := store.ImportEdges(ctx, spawns, uncles); err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Add(-time.Hour)
	for _, s := range sessions {
		f.root[s.ID] = s.AgentRoot
		if r.IntN(3) == 0 { // some sessions had Zimmer's blocks injected, spending or not
			tokens := 1 + r.Int64N(400)
			if err := store.RecordInjectedBlocks(ctx, s.ID, "claude-opus-4-5", at, []graph.InjectedBlock{{Block: "session_hierarchy", Bytes: 4 * tokens, Tokens: tokens}}); err != nil {
				t.Fatal(err)
			}
			f.injected[s.ID] = tokens
		}
		if r.IntN(5) == 0 {
			continue // some sessions spent nothing
		}
		var rows []session.TokenUsage
		for i := range 1 + r.IntN(3) {
			c := session.TokenCounts{InputTokens: r.Int64N(5000), OutputTokens: r.Int64N(900), CacheReadTokens: r.Int64N(20000),
				CacheCreationTokens: 300, CacheCreation5mTokens: 100, CacheCreation1hTokens: 200, WebSearchRequests: r.Int64N(2)}
			rows = append(rows, session.TokenUsage{RequestID: fmt.Sprintf("%s-%d-%d", roots[0], s.ID, i), Model: []string{"claude-opus-4-5", "claude-haiku-4-5"}[i%2],
				AgentRoot: s.AgentRoot, CalledAt: at, TokenCounts: c})
			f.spend[s.ID], f.calls[s.ID] = f.spend[s.ID].Add(c), f.calls[s.ID]+1
		}
		if _, err := store.RecordTokenUsage(ctx, s.ID, rows); err != nil {
			t.Fatal(err)
		}
	}
	day := at.Truncate(24 * time.Hour)
	check := func(what string, sc graph.CostScope, want map[int64]bool) {
		t.Helper()
		sc.FromDay, sc.ToDay = day, day.AddDate(0, 0, 1)
		spend, err := store.Spend(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		rows := spend.Rows
		wantT, wantCalls, wantInjected := f.sum(want)
		if gotT, gotCalls := foldRows(rows); gotT != wantT || gotCalls != wantCalls {
			t.Errorf("%s: %+v in %d calls, want %+v in %d calls over %d sessions", what, gotT, gotCalls, wantT, wantCalls, len(want))
		}
		if gotInjected, _ := foldInjected(spend.Injected); gotInjected != wantInjected {
			t.Errorf("%s: %d injected tokens, want %d", what, gotInjected, wantInjected)
		}
		// Each row is one session's own, and a session of the scope.
		perSession := map[int64][]graph.CostRow{}
		for _, row := range rows {
			perSession[row.SessionID] = append(perSession[row.SessionID], row)
		}
		for id, rows := range perSession {
			if gotT, gotCalls := foldRows(rows); !want[id] || gotT != f.spend[id] || gotCalls != f.calls[id] {
				t.Errorf("%s: #%d (in scope %v) has %+v in %d calls, want %+v in %d", what, id, want[id], gotT, gotCalls, f.spend[id], f.calls[id])
			}
		}
	}
	for _, id := range append([]int64{f.tops[0], f.tops[5]}, f.children[f.tops[3]]...) {
		want := map[int64]bool{}
		f.subtree(id, want)
		check(fmt.Sprintf("roll-up of #%d", id), graph.CostScope{SessionID: id, Descendants: true}, want)
	}
	for _, root := range roots {
		want := map[int64]bool{}
		for id, rt := range f.root {
			if rt == root {
				f.subtree(id, want)
			}
		}
		check("roll-up of agent root "+root, graph.CostScope{AgentRoot: root, Descendants: true}, want)
	}
	// Without the roll-up a scope is its own rows only.
	check(fmt.Sprintf("#%d alone", f.tops[0]), graph.CostScope{SessionID: f.tops[0]}, map[int64]bool{f.tops[0]: true})
}

// TestAScopedCostReportReadsOnlyItsScope profiles the report's statement: of its branches, one
// per kind of scope, only the asked-for scope's reads anything. How that branch reads is the
// planner's choice, which on a database this small is arbitrary.
func TestAScopedCostReportReadsOnlyItsScope(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	root := graphtest.Unique(t, "scoped")
	mine := graphtest.Session(t, store, func(d *session.Session) { d.Metadata[session.MetaAgentRoot] = root })
	other := graphtest.Session(t, store, nil)
	// A day of its own in the future, so the window holds only these rows whatever else runs.
	at := time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rand.IntN(100_000))
	spend := func(id int64, agentRoot string, n int) {
		rows := make([]session.TokenUsage, n)
		for i := range rows {
			rows[i] = session.TokenUsage{RequestID: fmt.Sprintf("%s-%d-%d", root, id, i), Model: "claude-opus-4-5", AgentRoot: agentRoot,
				CalledAt: at, TokenCounts: session.TokenCounts{InputTokens: 10}}
		}
		if _, err := store.RecordTokenUsage(ctx, id, rows); err != nil {
			t.Fatal(err)
		}
	}
	const own, others = 3, 60
	spend(mine.ID, root, own)
	spend(other.ID, "", others)

	o := graphtest.Neo4jOptions()
	driver, err := neo4j.NewDriverWithContext(o.URI, neo4j.BasicAuth(o.User, o.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer driver.Close(ctx)
	day := at.Truncate(24 * time.Hour)
	for _, tc := range []struct {
		name        string
		sessionID   int64
		agentRoot   string
		descendants bool
	}{
		{"one session", mine.ID, "", false},
		{"one session and its descendants", mine.ID, "", true},
		{"one agent root", 0, root, false},
		{"one agent root and its descendants", 0, root, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := graph.CostScope{FromDay: day, ToDay: day.AddDate(0, 0, 1), SessionID: tc.sessionID, AgentRoot: tc.agentRoot, Descendants: tc.descendants}
			got, err := store.Spend(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			if _, calls := foldRows(got.Rows); calls != own {
				t.Fatalf("the report counted %d calls, want %d", calls, own)
			}
			// A scope of sessions reads their cost summaries; an agent root alone, its rows.
			stmt, params := queries.CostSummaries, map[string]any{"session_id": tc.sessionID, "agent_root": tc.agentRoot, "descendants": tc.descendants,
				"from_day": day.Unix() / 86400, "to_day": day.Unix()/86400 + 1}
			if tc.sessionID == 0 && !tc.descendants {
				stmt, params = queries.SpendRows, map[string]any{"from_day": neo4j.DateOf(day), "to_day": neo4j.DateOf(day.AddDate(0, 0, 1)),
					"agent_root": tc.agentRoot}
			}
			res, err := neo4j.ExecuteQuery(ctx, driver, "PROFILE "+stmt, params, neo4j.EagerResultTransformer)
			if err != nil {
				t.Fatal(err)
			}
			if read := readOffScope(res.Summary.Profile()); read > 0 {
				t.Fatalf("the branches for other scopes read %d rows; the plan:\n%s", read, planText(res.Summary.Profile(), ""))
			}
		})
	}
}

// readOffScope sums the rows produced by the leaves of the statement's inactive branches: the
// branches under its unions other than the one whose guard row let it run.
func readOffScope(p neo4j.ProfiledPlan) int64 {
	if p.Operator() != "Union@neo4j" {
		var n int64
		for _, c := range p.Children() {
			n += readOffScope(c)
		}
		return n
	}
	var n int64
	for _, branch := range p.Children() {
		switch {
		case branch.Operator() == "Union@neo4j":
			n += readOffScope(branch)
		case !guardPassed(branch):
			n += leafRows(branch)
		}
	}
	return n
}

// guardPassed reports whether a branch's guard (an Unwind of one row or none) produced its row.
func guardPassed(p neo4j.ProfiledPlan) bool {
	if p.Operator() == "Unwind@neo4j" && p.Records() > 0 {
		return true
	}
	return slices.ContainsFunc(p.Children(), guardPassed)
}

// leafRows sums what a subtree read: the rows of its leaves, except the Argument rows that
// only hand a value in.
func leafRows(p neo4j.ProfiledPlan) int64 {
	if len(p.Children()) == 0 {
		if p.Operator() == "Argument@neo4j" {
			return 0
		}
		return p.Records()
	}
	var n int64
	for _, c := range p.Children() {
		n += leafRows(c)
	}
	return n
}

// planText draws a profiled plan one operator a line, with the rows each produced.
func planText(p neo4j.ProfiledPlan, indent string) string {
	details, _ := p.Arguments()["Details"].(string)
	out := fmt.Sprintf("%s%s rows=%d %s\n", indent, p.Operator(), p.Records(), strings.Join(strings.Fields(details), " "))
	for _, c := range p.Children() {
		out += planText(c, indent+"  ")
	}
	return out
}

// TestDeletingASessionDeletesItsInjectedBlockTally: the tally is reached only through its
// session, so deleting the session must take it along rather than leave it unreachable.
func TestDeletingASessionDeletesItsInjectedBlockTally(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	if err := store.RecordInjectedBlocks(ctx, s.ID, "claude-opus-4-5", time.Now(),
		[]graph.InjectedBlock{{Block: "session_hierarchy", Bytes: 400, Tokens: 100}}); err != nil {
		t.Fatal(err)
	}
	tallies := func() int64 {
		t.Helper()
		o := graphtest.Neo4jOptions()
		driver, err := neo4j.NewDriverWithContext(o.URI, neo4j.BasicAuth(o.User, o.Password, ""))
		if err != nil {
			t.Fatal(err)
		}
		defer driver.Close(ctx)
		res, err := neo4j.ExecuteQuery(ctx, driver, `MATCH (f:InjectedBlock {session_id: $id}) RETURN count(f) AS n`,
			map[string]any{"id": s.ID}, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.Records[0].Get("n")
		return n.(int64)
	}
	if n := tallies(); n != 1 {
		t.Fatalf("recorded %d tallies, want one", n)
	}
	if _, err := store.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if n := tallies(); n != 0 {
		t.Fatalf("%d tallies outlived their session", n)
	}
}

// TestARollUpReachesEveryGenerationHoweverItWasSpawned: a roll-up expands only sessions known
// to have spawned, so each way a spawn edge is made must make its parent known: a child made
// with its parent (the column, or the router_session_id of older clients), a parent set
// later, an imported fleet, and a fleet spawned before spawners were known, once migrated.
// A chain top → middle → leaf, with spend on the leaf only, rolls up to the top.
func TestARollUpReachesEveryGenerationHoweverItWasSpawned(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	withParent := func(p int64) func(*session.Session) { return func(d *session.Session) { d.ParentSessionID = &p } }
	for _, tc := range []struct {
		name  string
		chain func(t *testing.T) (top, leaf int64)
	}{
		{"created with its parent", func(t *testing.T) (int64, int64) {
			top := graphtest.Session(t, store, nil)
			middle := graphtest.Session(t, store, withParent(top.ID))
			return top.ID, graphtest.Session(t, store, withParent(middle.ID)).ID
		}},
		{"created with a router_session_id", func(t *testing.T) (int64, int64) {
			viaRouter := func(p int64) func(*session.Session) {
				return func(d *session.Session) { d.CustomMetadata[session.CustomRouterSessionID] = float64(p) }
			}
			top := graphtest.Session(t, store, nil)
			middle := graphtest.Session(t, store, viaRouter(top.ID))
			return top.ID, graphtest.Session(t, store, viaRouter(middle.ID)).ID
		}},
		{"given a parent later", func(t *testing.T) (int64, int64) {
			top, middle, leaf := graphtest.Session(t, store, nil), graphtest.Session(t, store, nil), graphtest.Session(t, store, nil)
			for _, e := range [][2]int64{{top.ID, middle.ID}, {middle.ID, leaf.ID}} {
				if _, err := store.UpdateSession(ctx, e[1], func(s *session.Session) error { s.ParentSessionID = &e[0]; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			return top.ID, leaf.ID
		}},
		{"imported", func(t *testing.T) (int64, int64) { return importedChain(t, store) }},
		{"spawned before spawners were known", func(t *testing.T) (int64, int64) {
			top, leaf := importedChain(t, store)
			graphtest.Cypher(t, `MATCH (s:Session) WHERE s.id IN [$top, $middle] REMOVE s:Spawner
				WITH count(*) AS n MATCH (m:Migration {name: 'lineage_onward_edges'}) SET m.done = false`,
				map[string]any{"top": top, "middle": top + 1})
			if _, err := store.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if !migrationDone(t, "lineage_onward_edges") {
				t.Error("the migration is not marked done: every start would run it again")
			}
			return top, leaf
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			top, leaf := tc.chain(t)
			at := time.Now().UTC().Add(-time.Minute)
			if _, err := store.RecordTokenUsage(ctx, leaf, []session.TokenUsage{usage(graphtest.Unique(t, "leaf"), "claude-opus-4-5", at, true, 700)}); err != nil {
				t.Fatal(err)
			}
			day := at.Truncate(24 * time.Hour)
			spend, err := store.Spend(ctx, graph.CostScope{FromDay: day, ToDay: day.AddDate(0, 0, 1), SessionID: top, Descendants: true})
			if err != nil {
				t.Fatal(err)
			}
			if got, calls := foldRows(spend.Rows); calls != 1 || got.InputTokens != 700 {
				t.Errorf("the roll-up of #%d found %d calls and %d input tokens, want the leaf's 1 and 700", top, calls, got.InputTokens)
			}
		})
	}
}

// importedChain imports a chain top → middle → leaf of consecutive ids.
func importedChain(t *testing.T, store *graph.Store) (top, leaf int64) {
	t.Helper()
	top = -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	var sessions []graph.ImportSession
	for i := range int64(3) {
		sessions = append(sessions, graph.ImportSession{ID: top + i, Title: "chain", Status: "running", Genesis: "api"})
	}
	ctx := context.Background()
	if err := store.ImportSessions(ctx, sessions); err != nil {
		t.Fatal(err)
	}
	if err := store.ImportEdges(ctx, []graph.ImportEdge{{From: top, To: top + 1}, {From: top + 1, To: top + 2}}, nil); err != nil {
		t.Fatal(err)
	}
	return top, top + 2
}
