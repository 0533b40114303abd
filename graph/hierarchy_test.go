package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/session"
)

// dags is a set of random lineage DAGs kept in memory as a lineage.Source, so the pure walk
// (the specification) can run over exactly what is stored. Every edge points from a lower id
// to a higher one: acyclic by construction.
type dags struct {
	sessions       []graph.ImportSession
	spawns, uncles []graph.ImportEdge
	byID           map[int64]graph.ImportSession
	parent         map[int64]int64
	children       map[int64][]int64
	seniors        map[int64][]int64 // junior → uncles
	juniors        map[int64][]int64 // uncle → juniors
}

var (
	dagGeneses  = []string{"web_ui", "slack", "api", "schedule", "github_issue", "unknown"}
	dagStatuses = []string{"failed", "archived"} // none a sweep or recovery acts on
)

// The shapes add builds; each is generated in turn, so every one is in every run.
const (
	shapeTree        = iota // random spawn parents
	shapeChain              // mostly a spawn chain, deeper than MaxDepth when long enough
	shapeRouter             // one router spawning most of the DAG: wider than MaxNodes when large
	shapeForest             // several spawn roots
	shapeUncleLadder        // a chain of uncle edges and no spawns: depth over uncles alone
	shapeFanIn              // the last session is an uncle junior of every other
	shapeUncleRouter        // one session the uncle senior of most of the DAG: wide by uncle edges
	shapeCount
)

var shapeNames = [shapeCount]string{"tree", "spawn chain", "wide router", "forest", "uncle ladder", "uncle fan-in", "uncle router"}

// add builds one random DAG of the given shape on ids base+1..base+n, with random uncle edges on
// top that make diamonds and fan-ins, and returns its ids.
func (d *dags) add(r *rand.Rand, base int64, shape int) []int64 {
	var n int
	switch x := r.IntN(100); {
	case x < 80:
		n = 1 + r.IntN(10)
	case x < 97:
		n = 10 + r.IntN(30)
	default:
		n = lineage.MaxNodes + 20 + r.IntN(40)
	}
	ids := make([]int64, n)
	for i := range n {
		id := base + int64(i) + 1
		ids[i] = id
		s := graph.ImportSession{ID: id, Title: fmt.Sprintf("S%d", id), Status: dagStatuses[r.IntN(len(dagStatuses))],
			Genesis: dagGeneses[r.IntN(len(dagGeneses))], AgentRoot: []string{"", "zimmer", "zimmer-router"}[r.IntN(3)]}
		d.sessions = append(d.sessions, s)
		d.byID[id] = s
		if i == 0 {
			continue
		}
		switch {
		case shape == shapeUncleLadder:
			d.uncle(id-1, id)
		case shape == shapeChain && r.IntN(10) < 8:
			d.spawn(id-1, id)
		case shape == shapeRouter && r.IntN(10) < 9:
			d.spawn(base+1, id)
		case shape == shapeUncleRouter && r.IntN(10) < 9:
			d.uncle(base+1, id)
		case shape == shapeForest && r.IntN(3) == 0: // another spawn root
		default:
			d.spawn(ids[r.IntN(i)], id)
		}
	}
	if n < 2 {
		return ids
	}
	hot := ids[n-1]
	if shape == shapeFanIn {
		for _, a := range ids[:n-1] {
			d.uncle(a, hot)
		}
	}
	for range r.IntN(n) {
		a, b := ids[r.IntN(n)], ids[r.IntN(n)]
		if r.IntN(4) == 0 {
			b = hot // fan-in
		}
		d.uncle(min(a, b), max(a, b))
	}
	return ids
}

func (d *dags) spawn(parent, child int64) {
	d.spawns = append(d.spawns, graph.ImportEdge{From: parent, To: child})
	d.parent[child] = parent
	d.children[parent] = append(d.children[parent], child)
}

// uncle adds senior → junior unless it is a self edge or the two are linked already.
func (d *dags) uncle(senior, junior int64) {
	if senior == junior || d.parent[junior] == senior || slices.Contains(d.seniors[junior], senior) {
		return
	}
	d.uncles = append(d.uncles, graph.ImportEdge{From: senior, To: junior})
	d.seniors[junior] = append(d.seniors[junior], senior)
	d.juniors[senior] = append(d.juniors[senior], junior)
}

// features names what one DAG holds that the walk's bounds and drawing rules care about.
func (d *dags) features(ids []int64) []string {
	var out []string
	if len(ids) > lineage.MaxNodes {
		out = append(out, "more than MaxNodes sessions")
	}
	longest := map[int64]int{} // edges on the longest path ending at id
	ancestors := map[int64]map[int64]bool{}
	deep, wide, wideByUncles, fanIn, diamond := false, false, false, false, false
	for _, id := range ids { // ids ascend and every edge points up the ids: a topological order
		seniors := slices.Clone(d.seniors[id])
		if p, ok := d.parent[id]; ok {
			seniors = append(seniors, p)
		}
		ancestors[id] = map[int64]bool{}
		for _, s := range seniors {
			longest[id] = max(longest[id], longest[s]+1)
			deep = deep || longest[id] > lineage.MaxDepth
			for a := range ancestors[s] {
				diamond = diamond || ancestors[id][a]
				ancestors[id][a] = true
			}
			diamond = diamond || ancestors[id][s]
			ancestors[id][s] = true
		}
		wide = wide || len(d.children[id])+len(d.juniors[id]) > lineage.MaxNodes
		wideByUncles = wideByUncles || len(d.juniors[id]) > lineage.MaxNodes
		fanIn = fanIn || len(d.seniors[id]) >= 5
	}
	for name, has := range map[string]bool{"deeper than MaxDepth": deep, "wider than MaxNodes": wide,
		"wider than MaxNodes by uncle edges": wideByUncles, "uncle fan-in": fanIn, "diamond": diamond} {
		if has {
			out = append(out, name)
		}
	}
	return out
}

func (d *dags) SpawnChain(id int64) ([]int64, error) {
	if _, ok := d.byID[id]; !ok {
		return nil, nil
	}
	chain := []int64{id}
	for p, ok := d.parent[id]; ok && len(chain) < lineage.MaxDepth+2; p, ok = d.parent[p] {
		chain = append(chain, p)
	}
	return chain, nil
}

func (d *dags) Seniors(ids []int64) ([]lineage.Link, error) {
	var out []lineage.Link
	for _, id := range ids {
		if p, ok := d.parent[id]; ok {
			out = append(out, lineage.Link{From: p, To: id, Kind: lineage.KindSpawn})
		}
		for _, u := range d.seniors[id] {
			out = append(out, lineage.Link{From: u, To: id, Kind: lineage.KindUncle})
		}
	}
	return out, nil
}

func (d *dags) Juniors(ids, seen []int64, limit int) ([]lineage.Link, error) {
	var all []lineage.Link
	for _, id := range ids {
		for _, c := range d.children[id] {
			all = append(all, lineage.Link{From: id, To: c, Kind: lineage.KindSpawn})
		}
		for _, j := range d.juniors[id] {
			all = append(all, lineage.Link{From: id, To: j, Kind: lineage.KindUncle})
		}
	}
	all = slices.DeleteFunc(all, func(l lineage.Link) bool { return slices.Contains(seen, l.To) })
	var tos []int64
	for _, l := range all {
		tos = append(tos, l.To)
	}
	slices.Sort(tos)
	tos = slices.Compact(tos)
	tos = tos[:min(len(tos), limit)]
	return slices.DeleteFunc(all, func(l lineage.Link) bool { _, found := slices.BinarySearch(tos, l.To); return !found }), nil
}

func (d *dags) Nodes(ids []int64) (map[int64]lineage.NodeData, error) {
	out := map[int64]lineage.NodeData{}
	for _, id := range ids {
		s, ok := d.byID[id]
		if !ok {
			continue
		}
		n := lineage.NodeData{ID: id, Title: s.Title, AgentRoot: s.AgentRoot, Status: s.Status, Genesis: s.Genesis,
			Class: string(session.Genesis(s.Genesis).DefaultClass()), UncleIDs: slices.Sorted(slices.Values(d.seniors[id]))}
		if p, ok := d.parent[id]; ok {
			n.ParentID = &p
		}
		out[id] = n
	}
	return out, nil
}

// describe renders everything a hierarchy says, for comparison.
func describe(h *lineage.Hierarchy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "session %d origin %d roots %v truncated %v\n", h.SessionID, h.OriginID, h.RootIDs, h.Truncated)
	for _, n := range h.Nodes {
		parent := "-"
		if n.ParentID != nil {
			parent = fmt.Sprint(*n.ParentID)
		}
		fmt.Fprintf(&b, "  #%d depth %d under %d parent %s uncles %v in-graph %v current %v %q %q %q %q %q\n", n.ID, n.Depth, n.Under,
			parent, n.UncleIDs, n.InGraphUncles, n.Current, n.Title, n.AgentRoot, n.Status, n.Genesis, n.Class)
	}
	return b.String()
}

// TestTheStoredWalkIsThePureWalk holds the one-statement walk to the lineage package: thousands
// of random DAGs of every shape the bounds and drawing rules care about (routers wide by spawn or
// by uncle edges, whose juniors the walk reads from the edge indexes, spawn and uncle chains
// deeper than MaxDepth, more than MaxNodes sessions, diamonds, uncle fan-ins) go
// through both, from two sessions each, and must come out identical — node for node, depth,
// drawing parent, uncles and truncation. A sample of the walks as of a time after every write
// (the as-of statements) must come out identical too.
func TestTheStoredWalkIsThePureWalk(t *testing.T) {
	const dagCount = 2000
	store := graphtest.Store(t)
	ctx := context.Background()
	// Negative ids, a random block per run: they never meet the session counter or another
	// test's fixtures, and a database kept between runs never sees the same block twice.
	base := -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	d := &dags{byID: map[int64]graph.ImportSession{}, parent: map[int64]int64{}, children: map[int64][]int64{},
		seniors: map[int64][]int64{}, juniors: map[int64][]int64{}}
	r := rand.New(rand.NewPCG(11, 7))
	type start struct {
		id    int64
		shape int
	}
	var starts []start
	covered := map[string]int{}
	for i := range dagCount {
		shape := i % shapeCount
		ids := d.add(r, base+int64(len(d.sessions)), shape)
		starts = append(starts, start{ids[r.IntN(len(ids))], shape}, start{ids[len(ids)-1], shape})
		for _, f := range d.features(ids) {
			covered[f]++
		}
	}
	// Batches keep each import transaction short, also on a loaded machine.
	const batch = 4000
	// Gone afterwards: tests that check the whole lineage graph read every edge there is.
	t.Cleanup(func() {
		for i := 0; i < len(d.sessions); i += batch {
			ids := make([]int64, 0, batch)
			for _, s := range d.sessions[i:min(i+batch, len(d.sessions))] {
				ids = append(ids, s.ID)
			}
			graphtest.Cypher(t, "UNWIND $ids AS id MATCH (s:Session {id: id}) DETACH DELETE s", map[string]any{"ids": ids})
		}
	})
	for i := 0; i < len(d.sessions); i += batch {
		if err := store.ImportSessions(ctx, d.sessions[i:min(i+batch, len(d.sessions))]); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < max(len(d.spawns), len(d.uncles)); i += batch / 2 {
		spawns, uncles := d.spawns[min(i, len(d.spawns)):min(i+batch/2, len(d.spawns))], d.uncles[min(i, len(d.uncles)):min(i+batch/2, len(d.uncles))]
		if err := store.ImportEdges(ctx, spawns, uncles); err != nil {
			t.Fatal(err)
		}
	}
	// Two walks at a time: the comparison is per walk, the round trips overlap.
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
		next     = make(chan int)
	)
	check := func(i int) string {
		id := starts[i].id
		want, err := lineage.Walk(d, id)
		if err != nil {
			return err.Error()
		}
		got, err := store.Hierarchy(ctx, id)
		if err != nil {
			return err.Error()
		}
		if describe(got) != describe(want) {
			return fmt.Sprintf("walk of #%d (%s) differs from the specification\nstored:\n%s\nspecification:\n%s", id, shapeNames[starts[i].shape], describe(got), describe(want))
		}
		if i%40 == 0 { // the as-of walk, a statement per level, is slower: a sample of the starts
			p, err := store.ProvenanceAsOf(ctx, id, time.Now().Add(time.Hour))
			if err != nil {
				return err.Error()
			}
			if describe(p.Hierarchy) != describe(want) {
				return fmt.Sprintf("walk of #%d as of now differs from the specification\nas of:\n%s\nspecification:\n%s", id, describe(p.Hierarchy), describe(want))
			}
		}
		mu.Lock()
		defer mu.Unlock()
		covered["shape: "+shapeNames[starts[i].shape]]++
		switch {
		case len(want.Nodes) > lineage.MaxNodes:
			covered["walk: node bound hit, asked-for session appended"]++
		case want.Truncated:
			covered["walk: truncated"]++
		case want.HasUncleEdges():
			covered["walk: complete, with uncle edges"]++
		default:
			covered["walk: complete"]++
		}
		return ""
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if msg := check(i); msg != "" {
					mu.Lock()
					failures = append(failures, msg)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range starts {
		mu.Lock()
		failed := len(failures) > 0
		mu.Unlock()
		if failed {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatal(failures[0])
	}
	t.Logf("%d walks over %d DAGs (%d sessions, %d spawn and %d uncle edges): %v", len(starts), dagCount, len(d.sessions), len(d.spawns), len(d.uncles), covered)
	kinds := []string{"more than MaxNodes sessions", "deeper than MaxDepth", "wider than MaxNodes", "wider than MaxNodes by uncle edges",
		"uncle fan-in", "diamond",
		"walk: node bound hit, asked-for session appended", "walk: truncated", "walk: complete, with uncle edges", "walk: complete"}
	for _, name := range shapeNames {
		kinds = append(kinds, "shape: "+name)
	}
	for _, kind := range kinds {
		if covered[kind] == 0 {
			t.Errorf("no walk exercised %q: the generator lost a shape", kind)
		}
	}
}
