package graph_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// add builds one random DAG on ids base+1..base+n in one of several shapes — a tree, a spawn
// chain deeper than MaxDepth, a router wider than MaxNodes, a forest — with uncle edges that
// make diamonds and fan-ins. It returns its ids.
func (d *dags) add(r *rand.Rand, base int64) []int64 {
	var n int
	switch x := r.IntN(100); {
	case x < 80:
		n = 1 + r.IntN(10)
	case x < 97:
		n = 10 + r.IntN(30)
	default:
		n = 150 + r.IntN(40)
	}
	shape := r.IntN(4) // 0 tree, 1 chain, 2 wide router, 3 forest
	ids := make([]int64, n)
	for i := range n {
		id := base + int64(i) + 1
		ids[i] = id
		parent, hasParent := int64(0), i > 0
		if hasParent {
			switch {
			case shape == 1 && r.IntN(10) < 8:
				parent = id - 1
			case shape == 2 && r.IntN(10) < 8:
				parent = base + 1
			case shape == 3 && r.IntN(3) == 0:
				hasParent = false
			default:
				parent = ids[r.IntN(i)]
			}
		}
		s := graph.ImportSession{ID: id, Title: fmt.Sprintf("S%d", id), Status: dagStatuses[r.IntN(len(dagStatuses))],
			Genesis: dagGeneses[r.IntN(len(dagGeneses))], AgentRoot: []string{"", "zimmer", "zimmer-router"}[r.IntN(3)]}
		d.sessions = append(d.sessions, s)
		d.byID[id] = s
		if hasParent {
			d.spawns = append(d.spawns, graph.ImportEdge{From: parent, To: id})
			d.parent[id] = parent
			d.children[parent] = append(d.children[parent], id)
		}
	}
	if n < 2 {
		return ids
	}
	hot := ids[n-1]
	for range r.IntN(n) {
		a, b := ids[r.IntN(n)], ids[r.IntN(n)]
		if r.IntN(4) == 0 {
			b = hot // fan-in
		}
		if a > b {
			a, b = b, a
		}
		if a == b || slices.Contains(d.seniors[b], a) {
			continue
		}
		d.uncles = append(d.uncles, graph.ImportEdge{From: a, To: b})
		d.seniors[b] = append(d.seniors[b], a)
		d.juniors[a] = append(d.juniors[a], b)
	}
	return ids
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

// TestTheStoredWalkIsThePureWalk holds the one-statement walk to the lineage package: random
// DAGs of every shape the bounds care about go through both, from several sessions each, and
// must come out identical — node for node, depth, drawing parent, uncles and truncation. The walk
// as of a time after every write (the as-of statements) must come out identical too.
func TestTheStoredWalkIsThePureWalk(t *testing.T) {
	const dagCount = 1200
	store := graphtest.Store(t)
	ctx := context.Background()
	// Negative ids, a random block per run: they never meet the session counter or another
	// test's fixtures, and a database kept between runs never sees the same block twice.
	base := -1_000_000_000_000 - rand.Int64N(1_000_000_000_000)
	d := &dags{byID: map[int64]graph.ImportSession{}, parent: map[int64]int64{}, children: map[int64][]int64{},
		seniors: map[int64][]int64{}, juniors: map[int64][]int64{}}
	r := rand.New(rand.NewPCG(11, 7))
	var starts []int64
	shapes := map[string]int{}
	for range dagCount {
		ids := d.add(r, base+int64(len(d.sessions)))
		starts = append(starts, []int64{ids[r.IntN(len(ids))], ids[len(ids)-1]}[r.IntN(2)])
	}
	const batch = 5000
	for i := 0; i < len(d.sessions); i += batch {
		if err := store.ImportSessions(ctx, d.sessions[i:min(i+batch, len(d.sessions))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.ImportEdges(ctx, d.spawns, d.uncles); err != nil {
		t.Fatal(err)
	}
	for i, id := range starts {
		want, err := lineage.Walk(d, id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.Hierarchy(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if describe(got) != describe(want) {
			t.Fatalf("walk of #%d differs from the specification\nstored:\n%s\nspecification:\n%s", id, describe(got), describe(want))
		}
		if i%10 == 0 { // the as-of walk, a statement per level, is slower: a sample of the starts
			p, err := store.ProvenanceAsOf(ctx, id, time.Now().Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if describe(p.Hierarchy) != describe(want) {
				t.Fatalf("walk of #%d as of now differs from the specification\nas of:\n%s\nspecification:\n%s", id, describe(p.Hierarchy), describe(want))
			}
		}
		switch {
		case len(want.Nodes) > lineage.MaxNodes:
			shapes["node bound hit, asked-for session appended"]++
		case want.Truncated:
			shapes["truncated"]++
		case want.HasUncleEdges():
			shapes["complete, with uncle edges"]++
		default:
			shapes["complete"]++
		}
	}
	t.Logf("%d walks over %d DAGs (%d sessions): %v", len(starts), dagCount, len(d.sessions), shapes)
	for _, kind := range []string{"node bound hit, asked-for session appended", "truncated", "complete, with uncle edges"} {
		if shapes[kind] == 0 {
			t.Errorf("no walk exercised %q: the generator lost a shape", kind)
		}
	}
}
