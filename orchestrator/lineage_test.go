package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// redisDB is this package's own Redis database.
const redisDB = 4

func setup(t *testing.T) (*orchestrator.Service, *graph.Store) {
	t.Helper()
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	return e.Ops, e.Store
}

// fleet builds sessions from a spec like "1>2 1>3" (spawn edges) and returns name → id.
type fleet map[string]int64

func build(t *testing.T, store *graph.Store, names string, spawns ...[2]string) fleet {
	t.Helper()
	f := fleet{}
	for _, n := range strings.Fields(names) {
		f[n] = graphtest.Session(t, store, nil).ID
	}
	for _, e := range spawns {
		parent := f[e[0]]
		f[e[1]] = graphtest.Session(t, store, func(d *session.Session) { d.ParentSessionID = &parent }).ID
	}
	return f
}

func (f fleet) s(name string) string { return fmt.Sprint(f[name]) }

func uncle(t *testing.T, ops *orchestrator.Service, f fleet, senior, junior string) orchestrator.UncleOutcome {
	t.Helper()
	return ops.RecordUncle(context.Background(), f[junior], f.s(senior), "test")
}

// edges lists the uncle edges among the fleet as "a→b", sorted.
func edges(t *testing.T, store *graph.Store, f fleet) string {
	t.Helper()
	names := map[int64]string{}
	for n, id := range f {
		names[id] = n
	}
	var out []string
	for _, id := range f {
		h, err := store.Hierarchy(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range h.Nodes {
			if n.ID != id {
				continue
			}
			for _, u := range n.UncleIDs {
				out = append(out, names[u]+"→"+names[id])
			}
		}
	}
	slicesSort(out)
	return strings.Join(out, " ")
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestRecordUncleEdgeDecisionTable(t *testing.T) {
	ops, store := setup(t)
	tests := []struct {
		name   string
		setup  func(f fleet) // uncle edges written first
		spawns [][2]string   // spawn edges (parent, child), children created here
		act    func(f fleet) (string, int64)
		want   orchestrator.UncleOutcome
		edges  string
	}{
		{name: "no actor: acting_session_id omitted",
			act: func(f fleet) (string, int64) { return "", f["B"] }, want: orchestrator.UncleNoActor},
		{name: "no actor: acting_session_id not digits-only",
			act: func(f fleet) (string, int64) { return "0x10", f["B"] }, want: orchestrator.UncleNoActor},
		{name: "no actor: negative acting_session_id",
			act: func(f fleet) (string, int64) { return "-3", f["B"] }, want: orchestrator.UncleNoActor},
		{name: "no actor: acting_session_id names no session",
			act: func(f fleet) (string, int64) { return "999999999999", f["B"] }, want: orchestrator.UncleNoActor},
		{name: "self: a session messaging itself",
			act: func(f fleet) (string, int64) { return f.s("B"), f["B"] }, want: orchestrator.UncleSelf},
		{name: "already senior: A spawned B", spawns: [][2]string{{"A", "C"}},
			act: func(f fleet) (string, int64) { return f.s("A"), f["C"] }, want: orchestrator.UncleAlready},
		{name: "already senior: a direct A→B edge exists", setup: func(f fleet) { f.edge(t, ops, "A", "B") },
			act: func(f fleet) (string, int64) { return f.s("A"), f["B"] }, want: orchestrator.UncleAlready, edges: "A→B"},
		{name: "already senior: A reaches B by a longer mixed path", spawns: [][2]string{{"B", "C"}},
			setup: func(f fleet) { f.edge(t, ops, "A", "B") },
			act:   func(f fleet) (string, int64) { return f.s("A"), f["C"] }, want: orchestrator.UncleAlready, edges: "A→B"},
		{name: "inverted: B→A exists and A now acts on B", setup: func(f fleet) { f.edge(t, ops, "B", "A") },
			act: func(f fleet) (string, int64) { return f.s("A"), f["B"] }, want: orchestrator.UncleInverted, edges: "A→B"},
		{name: "would create a cycle: a child calling back into its spawn parent", spawns: [][2]string{{"B", "C"}},
			act: func(f fleet) (string, int64) { return f.s("C"), f["B"] }, want: orchestrator.UncleCycle},
		{name: "would create a cycle: B senior to A by two hops", setup: func(f fleet) { f.edge(t, ops, "B", "X"); f.edge(t, ops, "X", "A") },
			act: func(f fleet) (string, int64) { return f.s("A"), f["B"] }, want: orchestrator.UncleCycle, edges: "B→X X→A"},
		{name: "inversion rolled back: B stays senior to A by a longer path",
			setup: func(f fleet) { f.edge(t, ops, "B", "A"); f.edge(t, ops, "B", "X"); f.edge(t, ops, "X", "A") },
			act:   func(f fleet) (string, int64) { return f.s("A"), f["B"] }, want: orchestrator.UncleCycle, edges: "B→A B→X X→A"},
		{name: "created: unrelated sessions",
			act: func(f fleet) (string, int64) { return f.s("A"), f["B"] }, want: orchestrator.UncleCreated, edges: "A→B"},
		{name: "created: acting_session_id with surrounding spaces",
			act: func(f fleet) (string, int64) { return " " + f.s("A") + " ", f["B"] }, want: orchestrator.UncleCreated, edges: "A→B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := build(t, store, "A B X", tt.spawns...)
			if tt.setup != nil {
				tt.setup(f)
			}
			actor, junior := tt.act(f)
			if got := ops.RecordUncle(context.Background(), junior, actor, "test"); got != tt.want {
				t.Fatalf("outcome %s, want %s", got, tt.want)
			}
			if got := edges(t, store, f); got != tt.edges {
				t.Fatalf("uncle edges %q, want %q", got, tt.edges)
			}
		})
	}
}

func (f fleet) edge(t *testing.T, ops *orchestrator.Service, senior, junior string) {
	t.Helper()
	if got := uncle(t, ops, f, senior, junior); got != orchestrator.UncleCreated {
		t.Fatalf("setup edge %s→%s: %s", senior, junior, got)
	}
}

// The junior J's upward side is the large one (its one senior P has a chain of 20 uncle seniors
// and 20 more beside it) while the senior A has just two juniors: a search that picks its side by
// a cheap estimate may well walk the large side. Whatever side it takes, the answer must be
// exact, down to the far end of the chain.
func TestReachabilityIsExactWhenTheSearchedSideIsTheLargeOne(t *testing.T) {
	ops, store := setup(t)
	const chain, fan = 20, 20
	lopsided := func(t *testing.T) fleet {
		f := build(t, store, "A P", [2]string{"A", "A1"}, [2]string{"A", "A2"}, [2]string{"P", "J"})
		below := "P"
		for i := 1; i <= chain; i++ {
			n := fmt.Sprint("S", i)
			f[n] = graphtest.Session(t, store, nil).ID
			f.edge(t, ops, n, below)
			below = n
		}
		for i := 1; i <= fan; i++ {
			n := fmt.Sprint("W", i)
			f[n] = graphtest.Session(t, store, nil).ID
			f.edge(t, ops, n, "P")
		}
		return f
	}
	far := fmt.Sprint("S", chain)
	tests := []struct {
		name           string
		linked         bool // A → the far end of the chain, so A reaches J through it
		senior, junior string
		want           orchestrator.UncleOutcome
	}{
		{name: "already senior through the far end of the large side", linked: true, senior: "A", junior: "J", want: orchestrator.UncleAlready},
		{name: "created after searching the whole large side without a hit", senior: "A", junior: "J", want: orchestrator.UncleCreated},
		{name: "would create a cycle: the junior reaches the senior through the large side", linked: true, senior: "J", junior: "A", want: orchestrator.UncleCycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := lopsided(t)
			if tt.linked {
				f.edge(t, ops, "A", far)
			}
			if got := uncle(t, ops, f, tt.senior, tt.junior); got != tt.want {
				t.Fatalf("%s→%s: %s, want %s", tt.senior, tt.junior, got, tt.want)
			}
			assertAcyclic(t, store)
		})
	}
}

func TestCycleAttemptsOfLength2To4AreRefused(t *testing.T) {
	ops, store := setup(t)
	for length := 2; length <= 4; length++ {
		t.Run(fmt.Sprintf("closing a cycle of length %d", length), func(t *testing.T) {
			f := build(t, store, "N0 N1 N2 N3")
			for i := 0; i < length-1; i++ {
				f.edge(t, ops, fmt.Sprint("N", i), fmt.Sprint("N", i+1))
			}
			last := fmt.Sprint("N", length-1)
			want := orchestrator.UncleCycle
			if length == 2 {
				want = orchestrator.UncleInverted // the direct edge inverts instead of closing the loop
			}
			if got := uncle(t, ops, f, last, "N0"); got != want {
				t.Fatalf("closing edge %s→N0: %s, want %s", last, got, want)
			}
			assertAcyclic(t, store)
		})
	}
}

func TestFourIndividuallyLegalCallsCannotBuildACycle(t *testing.T) {
	// A → B → X → A from four calls: the inversion's re-check is what stops it.
	ops, store := setup(t)
	f := build(t, store, "A B X")
	f.edge(t, ops, "B", "A")
	f.edge(t, ops, "B", "X")
	f.edge(t, ops, "X", "A")
	if got := uncle(t, ops, f, "A", "B"); got != orchestrator.UncleCycle {
		t.Fatalf("got %s", got)
	}
	assertAcyclic(t, store)
}

func TestRecordedEdgesAreOnBothTimelines(t *testing.T) {
	ops, store := setup(t)
	f := build(t, store, "A B")
	f.edge(t, ops, "A", "B")
	want := fmt.Sprintf("Uncle edge recorded: session #%d queued or interrupted session #%d, so #%d is now linked as an additional senior of #%d (test)",
		f["A"], f["B"], f["A"], f["B"])
	for _, who := range []string{"A", "B"} {
		logs, err := store.Logs(context.Background(), f[who], "", 0, 10)
		if err != nil || len(logs) != 1 || logs[0].Content != want || logs[0].Level != "info" {
			t.Fatalf("%s timeline: %v %v", who, logs, err)
		}
	}
	if got := uncle(t, ops, f, "B", "A"); got != orchestrator.UncleInverted {
		t.Fatal(got)
	}
	inverted := fmt.Sprintf("Seniority inverted: #%d was senior to #%d, which has now queued or interrupted it, so the uncle edge #%d → #%d was replaced by #%d → #%d (test)",
		f["A"], f["B"], f["A"], f["B"], f["B"], f["A"])
	logs, _ := store.Logs(context.Background(), f["A"], "", 0, 10)
	if len(logs) != 2 || logs[1].Content != inverted {
		t.Fatalf("inversion line: %v", logs)
	}
}

func TestChangingRouterSessionIDCannotMakeASessionItsOwnAncestor(t *testing.T) {
	ops, store := setup(t)
	f := build(t, store, "R", [2]string{"R", "C"})
	_, err := ops.Update(context.Background(), f["R"], orchestrator.UpdateParams{
		CustomMetadata: orchestrator.Opt[map[string]any]{Set: true, Value: &map[string]any{"router_session_id": f["C"]}},
	})
	if !errors.Is(err, orchestrator.ErrInvalid) || !strings.Contains(err.Error(), "own spawn ancestor") {
		t.Fatalf("want a refusal, got %v", err)
	}
	other := build(t, store, "O L")
	if _, err := ops.Update(context.Background(), other["L"], orchestrator.UpdateParams{
		CustomMetadata: orchestrator.Opt[map[string]any]{Set: true, Value: &map[string]any{"router_session_id": fmt.Sprint(other["O"])}},
	}); err != nil {
		t.Fatal(err)
	}
	h, err := store.Hierarchy(context.Background(), other["L"])
	if err != nil || h.OriginID != other["O"] {
		t.Fatalf("router_session_id set later moves the spawn edge (column absent): origin %d, err %v", h.OriginID, err)
	}
}

// TestConcurrentFollowUpsNeverCreateACycle: 16 writers send thousands of follow-ups, each
// declaring a random acting session, and remove some of their edges again, over a few hundred
// sessions with spawn trees and removed edges; then an independent check over the stored edges
// proves the lineage graph is still a DAG.
func TestConcurrentFollowUpsNeverCreateACycle(t *testing.T) {
	ops, store := setup(t)
	const sessions, writers, perWriter = 240, 16, 125
	var ids []int64
	for i := range sessions {
		var parent *int64
		if i%4 != 0 && len(ids) > 0 {
			p := ids[rand.IntN(len(ids))]
			parent = &p
		}
		ids = append(ids, graphtest.Session(t, store, func(d *session.Session) { d.ParentSessionID = parent }).ID)
	}
	// Removed edges in the fixture, pointing every which way: the writers below must treat them
	// as absent (a removed B → A must not refuse A → B), and they must never count as a cycle.
	fixture := rand.New(rand.NewPCG(7, 7))
	for range 80 {
		a, b := ids[fixture.IntN(len(ids))], ids[fixture.IntN(len(ids))]
		if ops.RecordUncle(context.Background(), b, fmt.Sprint(a), "test") == orchestrator.UncleCreated {
			if _, err := ops.RemoveUncle(context.Background(), orchestrator.RemoveUncleParams{
				Junior: b, Uncle: fmt.Sprint(a), Surface: "REST", Source: "test"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[orchestrator.FollowUpOutcome]int{}
	removals := 0
	var failures []error
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 42))
			var sent [][2]int64
			for range perWriter {
				if len(sent) > 0 && r.IntN(5) == 0 { // take back one of this writer's edges, if it stands
					p := sent[r.IntN(len(sent))]
					_, err := ops.RemoveUncle(context.Background(), orchestrator.RemoveUncleParams{
						Junior: p[1], Uncle: fmt.Sprint(p[0]), Surface: "REST", Source: "test"})
					mu.Lock()
					if err == nil {
						removals++
					} else if !errors.Is(err, orchestrator.ErrNotFound) {
						failures = append(failures, err)
					}
					mu.Unlock()
					continue
				}
				actor, target := ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]
				sent = append(sent, [2]int64{actor, target})
				res, err := ops.FollowUp(context.Background(), target, orchestrator.FollowUpParams{
					Prompt: "carry on", ActingSessionID: fmt.Sprint(actor)})
				mu.Lock()
				if err != nil {
					failures = append(failures, err)
				} else {
					outcomes[res.Outcome]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d follow-ups or removals failed, first: %v", len(failures), failures[0])
	}
	t.Logf("outcomes over %d calls: %v, %d edges removed", writers*perWriter, outcomes, removals)
	if removals == 0 {
		t.Fatal("no edge was removed during the run: the removed edges the check must ignore are missing")
	}
	edges := 0
	for _, id := range ids {
		h, err := store.Hierarchy(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range h.Nodes {
			if n.ID == id {
				edges += len(n.UncleIDs)
			}
		}
	}
	if edges == 0 {
		t.Fatal("the follow-ups recorded no uncle edge at all")
	}
	assertAcyclic(t, store)
}

// assertAcyclic reads every stored spawn and uncle edge and orders them with Kahn's algorithm
// (lineage.Unordered): a check independent of the writer's reachability search.
func assertAcyclic(t *testing.T, store *graph.Store) {
	t.Helper()
	edges, err := store.LineageEdges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := lineage.Unordered(edges); n != 0 {
		t.Fatalf("the lineage graph has a cycle: %d sessions cannot be ordered", n)
	}
}

// TestARemovedUncleEdgeStaysInTheLineageAsOfItsTime: remove_uncle takes the edge out of every
// read of now, while the hierarchy as of a time before the removal still has it; the removed
// edge is absent to the decision table, and re-adding it writes a live edge again.
func TestARemovedUncleEdgeStaysInTheLineageAsOfItsTime(t *testing.T) {
	ops, store := setup(t)
	ctx := context.Background()
	f := build(t, store, "A B")
	tick := func() time.Time {
		time.Sleep(5 * time.Millisecond)
		at := time.Now()
		time.Sleep(5 * time.Millisecond)
		return at
	}
	seniorsOfB := func(asOf time.Time) string {
		t.Helper()
		var h *lineage.Hierarchy
		if asOf.IsZero() {
			_, now, err := ops.Hierarchy(ctx, f["B"])
			if err != nil {
				t.Fatal(err)
			}
			h = now
		} else {
			rec, err := ops.ProvenanceAsOf(ctx, f["B"], asOf)
			if err != nil {
				t.Fatal(err)
			}
			h = rec.Hierarchy
		}
		for _, n := range h.Nodes {
			if n.ID == f["B"] {
				return fmt.Sprint(len(h.Nodes), " sessions, uncles ", n.InGraphUncles)
			}
		}
		t.Fatalf("B missing from its own hierarchy")
		return ""
	}
	before := tick()
	f.edge(t, ops, "A", "B")
	linked := tick()
	if _, err := ops.RemoveUncle(ctx, orchestrator.RemoveUncleParams{Junior: f["B"], Uncle: f.s("A"), Acting: f.s("A"), Surface: "MCP", Source: "test"}); err != nil {
		t.Fatal(err)
	}
	removed := tick()
	withA, withoutA := fmt.Sprint("2 sessions, uncles [", f["A"], "]"), "1 sessions, uncles []"
	for _, c := range []struct {
		name string
		at   time.Time
		want string
	}{{"before the edge", before, withoutA}, {"while the edge stood", linked, withA}, {"after the removal", removed, withoutA}, {"now", time.Time{}, withoutA}} {
		if got := seniorsOfB(c.at); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if _, err := ops.RemoveUncle(ctx, orchestrator.RemoveUncleParams{Junior: f["B"], Uncle: f.s("A"), Surface: "MCP", Source: "test"}); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Fatalf("removing the removed edge again: %v, want not found", err)
	}
	if got := uncle(t, ops, f, "B", "A"); got != orchestrator.UncleCreated {
		t.Fatalf("B → A after A → B was removed: %s, want created (the removed edge is no senior)", got)
	}
	if _, err := ops.RemoveUncle(ctx, orchestrator.RemoveUncleParams{Junior: f["A"], Uncle: f.s("B"), Surface: "MCP", Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if got := uncle(t, ops, f, "A", "B"); got != orchestrator.UncleCreated {
		t.Fatalf("re-adding A → B: %s, want created", got)
	}
	if got := seniorsOfB(time.Time{}); got != withA {
		t.Fatalf("after re-adding: %s, want %s", got, withA)
	}
	if got := seniorsOfB(removed); got != withoutA {
		t.Fatalf("the history between the removal and the re-adding changed: %s", got)
	}
	if _, err := ops.ProvenanceAsOf(ctx, f["B"], before.Add(-time.Hour)); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Fatalf("as of before B existed: %v, want not found", err)
	}
}

// TestAnInversionKeepsTheReplacedEdgeInTheHistory: inverting B → A into A → B retires B → A, so
// the hierarchy as of before the inversion still shows B as A's senior.
func TestAnInversionKeepsTheReplacedEdgeInTheHistory(t *testing.T) {
	ops, store := setup(t)
	f := build(t, store, "A B")
	f.edge(t, ops, "B", "A")
	time.Sleep(5 * time.Millisecond)
	before := time.Now()
	time.Sleep(5 * time.Millisecond)
	if got := uncle(t, ops, f, "A", "B"); got != orchestrator.UncleInverted {
		t.Fatalf("outcome %s, want inverted", got)
	}
	rec, err := ops.ProvenanceAsOf(context.Background(), f["A"], before)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range rec.Hierarchy.Nodes {
		if n.ID == f["A"] && fmt.Sprint(n.InGraphUncles) != fmt.Sprint([]int64{f["B"]}) {
			t.Fatalf("uncles of A before the inversion %v, want [B=%d]", n.InGraphUncles, f["B"])
		}
	}
	if got := edges(t, store, f); got != "A→B" {
		t.Fatalf("live edges %q, want A→B", got)
	}
}
