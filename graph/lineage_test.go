package graph_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/session"
)

// importLineage stores sessions named by the keys of edges' ends on a fresh block of negative
// ids (never meeting the session counter or another test's fixtures) with the given uncle edges,
// and returns each name's id.
func importLineage(t *testing.T, store *graph.Store, names []string, edges [][2]string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	base := -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	ids := map[string]int64{}
	var rows []graph.ImportSession
	for i, n := range names {
		ids[n] = base - int64(i)
		rows = append(rows, graph.ImportSession{ID: ids[n], Title: n, Status: "archived", Genesis: "api"})
	}
	var uncles []graph.ImportEdge
	for _, e := range edges {
		uncles = append(uncles, graph.ImportEdge{From: ids[e[0]], To: ids[e[1]]})
	}
	if err := store.ImportSessions(ctx, rows); err != nil {
		t.Fatal(err)
	}
	if err := store.ImportEdges(ctx, nil, uncles); err != nil {
		t.Fatal(err)
	}
	return ids
}

// warmGuard writes one uncle edge alone, so a burst of concurrent writers that follows does not
// also plan the guard statement all at once on a fresh database: the tests are about
// concurrency, not about a cold plan cache.
func warmGuard(t *testing.T, store *graph.Store) {
	t.Helper()
	ids := importLineage(t, store, []string{"warm-senior", "warm-junior", "warm-below"}, [][2]string{{"warm-junior", "warm-below"}})
	if _, err := store.RecordUncleEdge(context.Background(), ids["warm-senior"], ids["warm-junior"], "test"); err != nil {
		t.Fatal(err)
	}
}

// Two writers each add one half of a cycle at the same moment — P → Q while Q already reaches
// R, and R → S while S already reaches P — directly or through a path of other sessions. Each
// edge alone is legal; together they close P → Q ⇝ R → S ⇝ P. Exactly one must land, the other
// be refused, however the two interleave.
func TestConcurrentHalvesOfACycleNeverBothLand(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	warmGuard(t, store)
	tests := []struct {
		name    string
		between int  // sessions on each of the two existing paths
		spawn   bool // the second half is S becoming R's spawned child, not an uncle edge
	}{
		{name: "the existing paths are single edges", between: 0},
		{name: "the existing paths run through other sessions", between: 2},
		{name: "the second half is a new spawn parent", between: 1, spawn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const rounds = 40
			names := []string{}
			edges := [][2]string{}
			for i := range rounds {
				n := func(s string) string { return fmt.Sprint(s, i) }
				names = append(names, n("P"), n("Q"), n("R"), n("S"))
				for _, path := range [][2]string{{"Q", "R"}, {"S", "P"}} {
					from := n(path[0])
					for k := range tt.between {
						mid := fmt.Sprint(n(path[0]), "-", k)
						names = append(names, mid)
						edges = append(edges, [2]string{from, mid})
						from = mid
					}
					edges = append(edges, [2]string{from, n(path[1])})
				}
			}
			ids := importLineage(t, store, names, edges)
			results := make([][2]graph.UncleResult, rounds)
			var wg sync.WaitGroup
			for i := range rounds {
				start := make(chan struct{})
				for half, e := range [][2]string{{"P", "Q"}, {"R", "S"}} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						senior, junior := ids[fmt.Sprint(e[0], i)], ids[fmt.Sprint(e[1], i)]
						if tt.spawn && half == 1 {
							results[i][half] = spawnUnder(ctx, t, store, senior, junior)
							return
						}
						res, err := store.RecordUncleEdge(ctx, senior, junior, "test")
						if err != nil {
							t.Error(err)
						}
						results[i][half] = res
					}()
				}
				close(start)
			}
			wg.Wait()
			for i, r := range results {
				created := 0
				for _, res := range r {
					switch res {
					case graph.UncleCreated:
						created++
					case graph.UncleCycle:
					default:
						t.Errorf("round %d: %s, want created or would_create_cycle", i, res)
					}
				}
				if created != 1 {
					t.Errorf("round %d: %d of the two halves landed (%v), want exactly 1", i, created, r)
				}
			}
			edges2, err := store.LineageEdges(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n := lineage.Unordered(edges2); n != 0 {
				t.Fatalf("the lineage graph has a cycle: %d sessions cannot be ordered", n)
			}
		})
	}
}

// spawnUnder makes junior parent's spawned child and answers as an uncle write would: created,
// or would_create_cycle when the store refuses it with ErrCycle.
func spawnUnder(ctx context.Context, t *testing.T, store *graph.Store, parent, junior int64) graph.UncleResult {
	_, err := store.UpdateSession(ctx, junior, func(s *session.Session) error {
		s.ParentSessionID = &parent
		return nil
	})
	switch {
	case errors.Is(err, graph.ErrCycle):
		return graph.UncleCycle
	case err != nil:
		t.Error(err)
		return ""
	}
	return graph.UncleCreated
}

// A session cannot be its own spawn parent: the change is refused as a cycle, not failed.
func TestASessionMadeItsOwnSpawnParentIsRefusedAsACycle(t *testing.T) {
	store := graphtest.Store(t)
	s := graphtest.Session(t, store, nil)
	if got := spawnUnder(context.Background(), t, store, s.ID, s.ID); got != graph.UncleCycle {
		t.Fatalf("#%d as its own spawn parent: %q, want it refused as a cycle", s.ID, got)
	}
}

// Many writers draw random pairs from one small, densely linked lineage, so their guards overlap
// all the time and deadlocks between them are likely. They mix every kind of lineage write:
// uncle edges (and so inversions), removals, spawn-parent changes and new children. Every act
// gets an answer, and whatever they decide, the graph stays acyclic.
func TestManyMixedLineageWritersLeaveItAcyclic(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	warmGuard(t, store)
	const sessions, writers, acts = 24, 8, 30
	var names []string
	var edges [][2]string
	for i := range sessions {
		names = append(names, fmt.Sprint("N", i))
		if i > 0 {
			edges = append(edges, [2]string{fmt.Sprint("N", i/2), fmt.Sprint("N", i)}) // a binary tree
		}
	}
	ids := importLineage(t, store, names, edges)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		created int
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for range acts {
				a, b := ids[fmt.Sprint("N", r.IntN(sessions))], ids[fmt.Sprint("N", r.IntN(sessions))]
				var res graph.UncleResult
				var err error
				switch k := r.IntN(10); {
				case k < 6:
					res, err = store.RecordUncleEdge(ctx, a, b, "test")
				case k < 7:
					if _, _, err = store.RemoveUncleEdge(ctx, a, b, "test", "test"); errors.Is(err, graph.ErrNotFound) {
						err = nil
					}
				case k < 9:
					if a != b {
						res = spawnUnder(ctx, t, store, a, b)
					}
				default:
					d := graphtest.Draft()
					d.ParentSessionID = &a
					_, err = store.CreateSession(ctx, d)
				}
				if err != nil {
					t.Error(err)
					return
				}
				if res == graph.UncleCreated || res == graph.UncleInverted {
					mu.Lock()
					created++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	all, err := store.LineageEdges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := lineage.Unordered(all); n != 0 {
		t.Fatalf("the lineage graph has a cycle: %d sessions cannot be ordered", n)
	}
	if created == 0 {
		t.Fatal("no writer created an edge; the run proves nothing")
	}
	if n := notOnward(t, slices.Collect(maps.Values(ids))); n != 0 {
		t.Errorf("%d edges into a session with juniors are not onward: a wide senior could miss a path", n)
	}
}

// recordUncle records the uncle edge senior → junior and requires the outcome want.
func recordUncle(t *testing.T, store *graph.Store, senior, junior int64, want graph.UncleResult) {
	t.Helper()
	if got, err := store.RecordUncleEdge(context.Background(), senior, junior, "test"); err != nil || got != want {
		t.Fatalf("uncle edge #%d → #%d: %v, %v; want %v", senior, junior, got, err, want)
	}
}

// notOnward counts the lineage edges touching the given sessions whose junior has juniors but
// which do not say so: each is a path a wide senior's search would not take.
func notOnward(t *testing.T, ids []int64) int64 {
	t.Helper()
	res := graphtest.Query(t, `MATCH (a:Session)-[e:SPAWNED|UNCLE_OF]->(b:Session)
		WHERE (a.id IN $ids OR b.id IN $ids) AND EXISTS { (b)-[:SPAWNED|UNCLE_OF]->() } AND coalesce(e.onward, false) = false
		RETURN count(e) AS n`, map[string]any{"ids": ids})
	n, _ := res.Records[0].Get("n")
	return n.(int64)
}

// The new edge A → J, with A's seniors and J's juniors wide or narrow: whichever side the guard
// locks, including the whole junior side when both are past what it reads first (1,000), the
// answer is as exact as on a small graph — a cycle through the far end of both sides is found.
func TestTheCycleCheckIsExactWhateverTheWidthOfEachSide(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	build := func(seniors, juniors int, link bool) map[string]int64 {
		names := []string{"A", "J"}
		var edges [][2]string
		for i := range seniors {
			names = append(names, fmt.Sprint("U", i))
			edges = append(edges, [2]string{fmt.Sprint("U", i), "A"})
		}
		for i := range juniors {
			names = append(names, fmt.Sprint("D", i))
			edges = append(edges, [2]string{"J", fmt.Sprint("D", i)})
		}
		if link { // from the last junior below J to the last senior above A
			edges = append(edges, [2]string{fmt.Sprint("D", juniors-1), fmt.Sprint("U", seniors-1)})
		}
		return importLineage(t, store, names, edges)
	}
	type widths struct {
		name             string
		seniors, juniors int
	}
	for _, w := range []widths{
		{name: "both sides wide", seniors: 1100, juniors: 1100},
		{name: "the junior's side wide", seniors: 3, juniors: 1100},
		{name: "the senior's side wide", seniors: 1100, juniors: 3},
		{name: "both sides narrow", seniors: 3, juniors: 3},
	} {
		for _, link := range []bool{false, true} {
			want, path := graph.UncleCreated, "no path back"
			if link {
				want, path = graph.UncleCycle, "a path back"
			}
			t.Run(fmt.Sprintf("%s, %s: %s", w.name, path, want), func(t *testing.T) {
				ids := build(w.seniors, w.juniors, link)
				got, err := store.RecordUncleEdge(ctx, ids["A"], ids["J"], "test")
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("A→J: %s, want %s", got, want)
				}
			})
		}
	}
}

// The walk orders a level's juniors by the ids on the edges that reach them, and reads a wide
// senior's juniors from the indexes on those ids, so every way a lineage edge comes to be — and
// the migration for edges written before — must put both ends' ids on it and mark a senior
// with more juniors than the walk reads whole as a :WideSenior.
func TestEveryLineageEdgeCarriesItsEndsIDs(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	withParent := func(p int64) func(*session.Session) { return func(d *session.Session) { d.ParentSessionID = &p } }
	const wide = 101 // juniors that make a wide senior
	imported := func(t *testing.T, kind string) (senior int64, juniors []int64) {
		ids := importLineage(t, store, []string{"senior"}, nil)
		senior = ids["senior"]
		var rows []graph.ImportSession
		var edges []graph.ImportEdge
		for i := range int64(wide) {
			rows = append(rows, graph.ImportSession{ID: senior - 1 - i, Title: "junior", Status: "archived", Genesis: "api"})
			edges = append(edges, graph.ImportEdge{From: senior, To: senior - 1 - i})
			juniors = append(juniors, senior-1-i)
		}
		if err := store.ImportSessions(ctx, rows); err != nil {
			t.Fatal(err)
		}
		spawns, uncles := edges, []graph.ImportEdge(nil)
		if kind == "uncle" {
			spawns, uncles = nil, edges
		}
		if err := store.ImportEdges(ctx, spawns, uncles); err != nil {
			t.Fatal(err)
		}
		return senior, juniors
	}
	for _, tc := range []struct {
		name      string
		edges     func(t *testing.T) (senior int64, juniors []int64)
		wideAfter bool
	}{
		{"spawned by a session created with its parent", func(t *testing.T) (int64, []int64) {
			top := graphtest.Session(t, store, nil)
			return top.ID, []int64{graphtest.Session(t, store, withParent(top.ID)).ID}
		}, false},
		{"spawned by a router_session_id", func(t *testing.T) (int64, []int64) {
			top := graphtest.Session(t, store, nil)
			return top.ID, []int64{graphtest.Session(t, store, func(d *session.Session) {
				d.CustomMetadata[session.CustomRouterSessionID] = float64(top.ID)
			}).ID}
		}, false},
		{"spawned by a parent given later", func(t *testing.T) (int64, []int64) {
			top, child := graphtest.Session(t, store, nil), graphtest.Session(t, store, nil)
			if _, err := store.UpdateSession(ctx, child.ID, func(s *session.Session) error { s.ParentSessionID = &top.ID; return nil }); err != nil {
				t.Fatal(err)
			}
			return top.ID, []int64{child.ID}
		}, false},
		{"an uncle edge recorded", func(t *testing.T) (int64, []int64) {
			a, b := graphtest.Session(t, store, nil), graphtest.Session(t, store, nil)
			recordUncle(t, store, a.ID, b.ID, graph.UncleCreated)
			return a.ID, []int64{b.ID}
		}, false},
		{"an uncle edge inverted", func(t *testing.T) (int64, []int64) {
			a, b := graphtest.Session(t, store, nil), graphtest.Session(t, store, nil)
			recordUncle(t, store, a.ID, b.ID, graph.UncleCreated)
			recordUncle(t, store, b.ID, a.ID, graph.UncleInverted)
			return b.ID, []int64{a.ID}
		}, false},
		{"imported", func(t *testing.T) (int64, []int64) {
			top, _ := importedChain(t, store)
			return top, []int64{top + 1}
		}, false},
		{"a wide senior's last child created with its parent", func(t *testing.T) (int64, []int64) {
			senior, juniors := imported(t, "spawn")
			graphtest.Cypher(t, `MATCH (s:Session {id: $id}) REMOVE s:WideSenior`, map[string]any{"id": senior})
			child := graphtest.Session(t, store, withParent(senior))
			return senior, append(juniors, child.ID)
		}, true},
		{"a wide senior's last uncle edge recorded", func(t *testing.T) (int64, []int64) {
			senior, juniors := imported(t, "uncle")
			graphtest.Cypher(t, `MATCH (s:Session {id: $id}) REMOVE s:WideSenior`, map[string]any{"id": senior})
			b := graphtest.Session(t, store, nil)
			recordUncle(t, store, senior, b.ID, graph.UncleCreated)
			return senior, append(juniors, b.ID)
		}, true},
		{"a wide senior imported", func(t *testing.T) (int64, []int64) { return imported(t, "spawn") }, true},
		{"written before edges carried their ends", func(t *testing.T) (int64, []int64) {
			senior, juniors := imported(t, "uncle")
			graphtest.Cypher(t, `MATCH (s:Session {id: $id})-[e:SPAWNED|UNCLE_OF]->() REMOVE s:WideSenior, e.senior_id, e.junior_id
				WITH count(*) AS n MATCH (m:Migration {name: 'lineage_onward_edges'}) SET m.done = false`,
				map[string]any{"id": senior})
			if _, err := store.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if !migrationDone(t, "lineage_onward_edges") {
				t.Error("the migration is not marked done: every start would run it again")
			}
			return senior, juniors
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			senior, juniors := tc.edges(t)
			res := graphtest.Query(t, `MATCH (a:Session {id: $senior})-[e:SPAWNED|UNCLE_OF]->(b:Session) WHERE b.id IN $juniors
				RETURN a.id AS senior, b.id AS junior, e.senior_id AS carriedSenior, e.junior_id AS carriedJunior,
				       a:WideSenior AS wide`, map[string]any{"senior": senior, "juniors": juniors})
			if len(res.Records) != len(juniors) {
				t.Fatalf("%d lineage edges #%d → %v, want %d", len(res.Records), senior, juniors, len(juniors))
			}
			for _, rec := range res.Records {
				m := rec.AsMap()
				if m["carriedSenior"] != m["senior"] || m["carriedJunior"] != m["junior"] {
					t.Errorf("the edge #%v → #%v carries senior_id %v and junior_id %v", m["senior"], m["junior"], m["carriedSenior"], m["carriedJunior"])
				}
				if m["wide"] != tc.wideAfter {
					t.Fatalf("#%d with %d juniors: WideSenior %v, want %v", senior, len(juniors), m["wide"], tc.wideAfter)
				}
			}
		})
	}
}

// A wide senior is searched for a path to the junior only through those of its juniors that have
// juniors of their own: the edges into such a session say so (onward), and every way an edge
// comes to be — and the migration for edges written before — keeps them saying so. Should one
// of them not, the senior would be taken for not reaching a junior it reaches.
func TestAWideSeniorReachesOnlyThroughJuniorsThatGoOn(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	const leaves = 120 // more than the 100 juniors that make a wide senior
	for _, tc := range []struct {
		name  string
		edges [][2]string // besides A → L0 … L119
		then  func(t *testing.T, ids map[string]int64)
		want  graph.UncleResult
	}{
		{name: "no junior goes on", want: graph.UncleCreated},
		{name: "a junior goes on elsewhere", edges: [][2]string{{"L5", "X"}}, want: graph.UncleCreated},
		{name: "a junior goes on to B, imported", edges: [][2]string{{"L5", "X"}, {"X", "B"}}, want: graph.UncleAlready},
		{name: "a junior recorded senior to B", then: func(t *testing.T, ids map[string]int64) {
			recordUncle(t, store, ids["L5"], ids["B"], graph.UncleCreated)
		}, want: graph.UncleAlready},
		{name: "a junior spawned a session senior to B", then: func(t *testing.T, ids map[string]int64) {
			p := ids["L5"]
			child := graphtest.Session(t, store, func(d *session.Session) { d.ParentSessionID = &p })
			recordUncle(t, store, child.ID, ids["B"], graph.UncleCreated)
		}, want: graph.UncleAlready},
		{name: "a junior given a child senior to B later", then: func(t *testing.T, ids map[string]int64) {
			child := graphtest.Session(t, store, nil)
			recordUncle(t, store, child.ID, ids["B"], graph.UncleCreated)
			if res := spawnUnder(ctx, t, store, ids["L5"], child.ID); res != graph.UncleCreated {
				t.Fatalf("L5 spawning the child: %s", res)
			}
		}, want: graph.UncleAlready},
		{name: "a junior senior to B by an inversion", edges: [][2]string{{"Y", "B"}}, then: func(t *testing.T, ids map[string]int64) {
			recordUncle(t, store, ids["Y"], ids["L5"], graph.UncleCreated)
			recordUncle(t, store, ids["L5"], ids["Y"], graph.UncleInverted)
		}, want: graph.UncleAlready},
		{name: "a junior going on to B before edges said so", edges: [][2]string{{"L5", "X"}, {"X", "B"}}, then: func(t *testing.T, ids map[string]int64) {
			graphtest.Cypher(t, `MATCH (s:Session)-[e:SPAWNED|UNCLE_OF]->() WHERE s.id IN $ids REMOVE e.onward
				WITH count(*) AS n MATCH (m:Migration {name: 'lineage_onward_edges'}) SET m.done = false`,
				map[string]any{"ids": slices.Collect(maps.Values(ids))})
			if _, err := store.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
		}, want: graph.UncleAlready},
	} {
		t.Run(fmt.Sprintf("%s: %s", tc.name, tc.want), func(t *testing.T) {
			names := []string{"A", "B", "X", "Y"}
			edges := tc.edges
			for i := range leaves {
				names = append(names, fmt.Sprint("L", i))
				edges = append(edges, [2]string{"A", fmt.Sprint("L", i)})
			}
			ids := importLineage(t, store, names, edges)
			if tc.then != nil {
				tc.then(t, ids)
			}
			wide := graphtest.Query(t, `MATCH (a:Session {id: $id}) RETURN a:WideSenior AS wide`, map[string]any{"id": ids["A"]})
			if w, _ := wide.Records[0].Get("wide"); w != true {
				t.Fatal("A is not a :WideSenior; the test would not exercise the search it is about")
			}
			got, err := store.RecordUncleEdge(ctx, ids["A"], ids["B"], "test")
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("A → B: %s, want %s", got, tc.want)
			}
			if n := notOnward(t, slices.Collect(maps.Values(ids))); n != 0 {
				t.Errorf("%d edges into a session with juniors are not onward", n)
			}
		})
	}
}
