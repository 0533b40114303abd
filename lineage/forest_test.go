package lineage

import (
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
