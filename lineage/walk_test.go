package lineage

import (
	"fmt"
	"slices"
	"testing"
)

// memGraph is an in-memory Source: spawn parents and uncle edges between integer ids.
type memGraph struct {
	parent map[int64]int64   // child → spawn parent
	uncles map[int64][]int64 // junior → seniors
	exists map[int64]bool
}

func newGraph() *memGraph {
	return &memGraph{parent: map[int64]int64{}, uncles: map[int64][]int64{}, exists: map[int64]bool{}}
}

func (g *memGraph) add(ids ...int64) *memGraph {
	for _, id := range ids {
		g.exists[id] = true
	}
	return g
}

func (g *memGraph) spawn(parent, child int64) *memGraph {
	g.add(parent, child)
	g.parent[child] = parent
	return g
}

func (g *memGraph) uncle(senior, junior int64) *memGraph {
	g.add(senior, junior)
	g.uncles[junior] = append(g.uncles[junior], senior)
	return g
}

func (g *memGraph) SpawnChain(id int64) ([]int64, error) {
	if !g.exists[id] {
		return nil, nil
	}
	chain := []int64{id}
	for len(chain) < MaxDepth+2 {
		p, ok := g.parent[chain[len(chain)-1]]
		if !ok || slices.Contains(chain, p) {
			break
		}
		chain = append(chain, p)
	}
	return chain, nil
}

func (g *memGraph) Seniors(ids []int64) ([]Link, error) {
	var out []Link
	for _, id := range ids {
		if p, ok := g.parent[id]; ok {
			out = append(out, Link{From: p, To: id, Kind: KindSpawn})
		}
		for _, u := range g.uncles[id] {
			out = append(out, Link{From: u, To: id, Kind: KindUncle})
		}
	}
	return out, nil
}

func (g *memGraph) Juniors(ids, seen []int64, limit int) ([]Link, error) {
	var out []Link
	var tos []int64
	for child, p := range g.parent {
		if slices.Contains(ids, p) && !slices.Contains(seen, child) {
			out = append(out, Link{From: p, To: child, Kind: KindSpawn})
			tos = append(tos, child)
		}
	}
	for junior, seniors := range g.uncles {
		for _, s := range seniors {
			if slices.Contains(ids, s) && !slices.Contains(seen, junior) {
				out = append(out, Link{From: s, To: junior, Kind: KindUncle})
				tos = append(tos, junior)
			}
		}
	}
	slices.Sort(tos)
	tos = slices.Compact(tos)
	if len(tos) > limit {
		tos = tos[:limit]
	}
	return slices.DeleteFunc(out, func(l Link) bool { return !slices.Contains(tos, l.To) }), nil
}

func (g *memGraph) Nodes(ids []int64) (map[int64]NodeData, error) {
	out := map[int64]NodeData{}
	for _, id := range ids {
		if !g.exists[id] {
			continue
		}
		n := NodeData{ID: id, Title: fmt.Sprintf("S%d", id), Genesis: "api", Class: "spot", UncleIDs: g.uncles[id]}
		if p, ok := g.parent[id]; ok {
			n.ParentID = &p
		}
		out[id] = n
	}
	return out, nil
}

func depths(h *Hierarchy) string {
	s := ""
	for _, n := range h.Nodes {
		s += fmt.Sprintf("%d@%d ", n.ID, n.Depth)
	}
	return s
}

func chain(n int) *memGraph {
	g := newGraph().add(1)
	for i := int64(2); i <= int64(n); i++ {
		g.spawn(i-1, i)
	}
	return g
}

func TestWalk(t *testing.T) {
	tests := []struct {
		name      string
		g         *memGraph
		id        int64
		origin    int64
		roots     []int64
		nodes     string
		truncated bool
	}{
		{"a session alone is its own origin and root", newGraph().add(7), 7, 7, []int64{7}, "7@0 ", false},
		{"a router and two workers, asked from a worker", newGraph().spawn(1, 2).spawn(1, 3), 3, 1, []int64{1}, "1@0 2@1 3@1 ", false},
		{"an uncle's hierarchy joins the roots after the spawn origin", newGraph().spawn(1, 2).spawn(10, 11).uncle(11, 2), 2, 1, []int64{1, 10}, "1@0 10@0 2@1 11@1 ",
			false},
		{"a session reached two ways is drawn once at its shallowest depth", newGraph().spawn(1, 2).spawn(2, 3).uncle(1, 3), 3, 1, []int64{1}, "1@0 2@1 3@1 ", false},
		{"a tree exactly eight levels deep is complete", chain(9), 9, 1, []int64{1}, "1@0 2@1 3@2 4@3 5@4 6@5 7@6 8@7 9@8 ", false},
		{"the ninth level down is cut", chain(10), 1, 1, []int64{1}, "1@0 2@1 3@2 4@3 5@4 6@5 7@6 8@7 9@8 ", true},
		{"a spawn chain longer than eight stalls upward: the stalled frontier is the root", chain(12), 12, 4,
			[]int64{4}, "4@0 5@1 6@2 7@3 8@4 9@5 10@6 11@7 12@8 ", true},
		{"a cycle written behind the writer's back terminates", newGraph().uncle(1, 2).uncle(2, 1), 1, 1, []int64{1}, "1@0 2@1 ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Walk(tt.g, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if h.OriginID != tt.origin || !slices.Equal(h.RootIDs, tt.roots) || depths(h) != tt.nodes || h.Truncated != tt.truncated {
				t.Fatalf("origin %d roots %v nodes %q truncated %v; want %d %v %q %v",
					h.OriginID, h.RootIDs, depths(h), h.Truncated, tt.origin, tt.roots, tt.nodes, tt.truncated)
			}
			if (h.Reason() != "") != tt.truncated {
				t.Fatalf("the truncation note appears exactly when truncated: %q", h.Reason())
			}
		})
	}
}

func TestWalkAdmitsAtMost150AndAlwaysTheAskedForSession(t *testing.T) {
	g := newGraph().add(1)
	for i := int64(2); i <= 400; i++ {
		g.spawn(1, i)
	}
	h, err := Walk(g, 400)
	if err != nil {
		t.Fatal(err)
	}
	last := h.Nodes[len(h.Nodes)-1]
	if len(h.Nodes) != MaxNodes+1 || !h.Truncated || last.ID != 400 || !last.Current || last.Depth != 2 {
		t.Fatalf("want 150 nodes plus the asked-for one appended one level below the last, got %d nodes, last %+v", len(h.Nodes), last)
	}
	if h.Reason() != "Showing at most 150 sessions, 8 levels from the highest ancestor reached. This tree is larger." {
		t.Fatalf("note %q", h.Reason())
	}
}

func TestWalkShowsOnlyInGraphUncles(t *testing.T) {
	g := newGraph().spawn(1, 2).uncle(1, 2)
	h, _ := Walk(g, 2)
	if got := h.Nodes[1].InGraphUncles; !slices.Equal(got, []int64{1}) || !h.HasUncleEdges() {
		t.Fatalf("uncles %v", got)
	}
	if h.Nodes[1].Under != 1 {
		t.Fatal("a junior reached by a spawn edge is drawn under its spawn parent")
	}
}

func TestWalkOfAMissingSessionFails(t *testing.T) {
	if _, err := Walk(newGraph(), 5); err == nil {
		t.Fatal("want an error")
	}
}

func TestUnorderedCountsNodesCaughtInCycles(t *testing.T) {
	tests := []struct {
		name  string
		edges [][2]int64
		want  int
	}{
		{"empty", nil, 0},
		{"a tree with a diamond", [][2]int64{{1, 2}, {1, 3}, {2, 4}, {3, 4}}, 0},
		{"a two-cycle", [][2]int64{{1, 2}, {2, 1}}, 2},
		{"a three-cycle hanging off a DAG", [][2]int64{{0, 1}, {1, 2}, {2, 3}, {3, 1}, {3, 4}}, 4},
	}
	for _, tt := range tests {
		if got := Unordered(tt.edges); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// A store that walks without recording what each junior is drawn under leaves Under unset;
// Complete derives it, and must land where the walk itself would have drawn every node.
func TestCompleteDrawsEachJuniorWhereTheWalkWould(t *testing.T) {
	wide := newGraph().add(1)
	for i := int64(2); i <= 400; i++ {
		wide.spawn(1, i)
	}
	for _, tt := range []struct {
		name string
		g    *memGraph
		id   int64
	}{
		{"a spawn parent one level up", newGraph().spawn(1, 2).spawn(2, 3).uncle(1, 3), 3},
		{"the lowest-id uncle when the parent is deeper", newGraph().spawn(1, 2).spawn(2, 3).spawn(3, 4).uncle(1, 4).uncle(2, 4), 4},
		{"the lowest-id uncle one level up, not a lower one further up", newGraph().spawn(5, 6).uncle(1, 2).uncle(2, 6).uncle(1, 7).uncle(7, 6).uncle(3, 6), 6},
		{"an uncle's hierarchy beside the origin's", newGraph().spawn(1, 2).spawn(10, 11).uncle(11, 2), 2},
		{"the asked-for session appended past the bound keeps its own", wide, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := Walk(tt.g, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			got := &Hierarchy{SessionID: want.SessionID, Nodes: slices.Clone(want.Nodes)}
			for i := range got.Nodes {
				if got.Nodes[i].ID != tt.id || !want.Truncated {
					got.Nodes[i].Under = 0
				}
			}
			got.Complete()
			for i, n := range got.Nodes {
				if n.Under != want.Nodes[i].Under {
					t.Errorf("#%d at depth %d is drawn under %d, the walk drew it under %d", n.ID, n.Depth, n.Under, want.Nodes[i].Under)
				}
			}
		})
	}
}
