package lineage

import (
	"cmp"
	"slices"
)

// Forest is the outline's tree over the walk: the nodes drawn at the top (a root, or a node
// whose Under fell outside the bounded walk) in walk order, and each node's children in id
// order. The text outline and the drawn hierarchy both render it.
func (h *Hierarchy) Forest() (tops []Node, children map[int64][]Node) {
	in := make(map[int64]bool, len(h.Nodes))
	for _, n := range h.Nodes {
		in[n.ID] = true
	}
	// Every drawn-under node goes into one slice, sorted by the node it is under and then by id,
	// and each node's children are a window of it: two allocations however wide the walk.
	below := make([]Node, 0, len(h.Nodes))
	for _, n := range h.Nodes {
		if n.Under == 0 || !in[n.Under] {
			tops = append(tops, n)
		} else {
			below = append(below, n)
		}
	}
	slices.SortFunc(below, func(a, b Node) int { return cmp.Or(cmp.Compare(a.Under, b.Under), cmp.Compare(a.ID, b.ID)) })
	children = map[int64][]Node{}
	for i := 0; i < len(below); {
		j := i + 1
		for j < len(below) && below[j].Under == below[i].Under {
			j++
		}
		children[below[i].Under] = below[i:j:j]
		i = j
	}
	return tops, children
}
