package lineage

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func ids(ns []Node) []int64 {
	out := make([]int64, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

// TestTheForestPutsOrphansOnTopAndChildrenInIDOrder: a node drawn under a session outside the
// bounded walk is a top of its own, and children come in id order whatever the walk's order.
func TestTheForestPutsOrphansOnTopAndChildrenInIDOrder(t *testing.T) {
	node := func(id, under int64) Node { return Node{NodeData: NodeData{ID: id}, Under: under} }
	h := &Hierarchy{Nodes: []Node{node(1, 0), node(9, 1), node(4, 1), node(7, 99), node(5, 4)}}
	tops, children := h.Forest()
	cases := []struct {
		name      string
		got, want []int64
	}{
		{"tops in walk order", ids(tops), []int64{1, 7}},
		{"children of 1 by id", ids(children[1]), []int64{4, 9}},
		{"children of 4", ids(children[4]), []int64{5}},
		{"no children under the missing 99", ids(children[99]), []int64{}},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestTheForestIsEveryNodeUnderItsOwnInIDOrder: on random walks, the tops are exactly the nodes
// whose Under is not in the walk, in walk order, and every node's children are exactly the nodes
// drawn under it, in id order, each once.
func TestTheForestIsEveryNodeUnderItsOwnInIDOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	for trial := range 2000 {
		n := r.IntN(60)
		perm := r.Perm(4 * (n + 1)) // distinct ids in no particular order
		h := &Hierarchy{}
		for i := range n {
			under := int64(0)
			switch {
			case i > 0 && r.IntN(5) > 0:
				under = h.Nodes[r.IntN(i)].ID // a node earlier in the walk
			case r.IntN(2) == 0:
				under = int64(1000 + r.IntN(50)) // outside the bounded walk
			}
			h.Nodes = append(h.Nodes, Node{NodeData: NodeData{ID: int64(perm[i] + 1)}, Under: under})
		}
		in := map[int64]bool{}
		for _, x := range h.Nodes {
			in[x.ID] = true
		}
		var wantTops []int64
		wantKids := map[int64][]int64{}
		for _, x := range h.Nodes {
			if in[x.Under] {
				wantKids[x.Under] = append(wantKids[x.Under], x.ID)
			} else {
				wantTops = append(wantTops, x.ID)
			}
		}
		tops, children := h.Forest()
		if !slices.Equal(ids(tops), wantTops) {
			t.Fatalf("trial %d: tops %v, want %v", trial, ids(tops), wantTops)
		}
		if len(children) != len(wantKids) {
			t.Fatalf("trial %d: %d nodes with children, want %d", trial, len(children), len(wantKids))
		}
		for id, want := range wantKids {
			slices.Sort(want)
			if got := ids(children[id]); !slices.Equal(got, want) {
				t.Fatalf("trial %d: children of %d %v, want %v", trial, id, got, want)
			}
		}
	}
}
