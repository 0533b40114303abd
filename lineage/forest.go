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
	children = map[int64][]Node{}
	for _, n := range h.Nodes {
		if n.Under == 0 || !in[n.Under] {
			tops = append(tops, n)
		} else {
			children[n.Under] = append(children[n.Under], n)
		}
	}
	for _, kids := range children {
		slices.SortFunc(kids, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	}
	return tops, children
}
