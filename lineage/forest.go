package lineage

import (
	"cmp"
	"slices"
)

// Forest is the outline's tree over the walk: the nodes drawn at the top (a root, or a node
// whose Under fell outside the bounded walk) in walk order, and each node's children in id
// order. The text outline and the drawn hierarchy both render it.
func (h *Hierarchy) Forest() (tops []Node, children map[int64][]Node) {
	at := make(map[int64]int32, len(h.Nodes))
	for i, n := range h.Nodes {
		at[n.ID] = int32(i)
	}
	// Every drawn-under node goes into one slice, grouped by the node it is under (a counting
	// sort: nodes are wide, so moving them once beats sorting them), and each node's children are
	// a window of it. The walk lists each level by id, so a window is already in id order unless
	// its children sit on different levels.
	under := make([]int32, len(h.Nodes)) // position of the node each is drawn under; -1 for a top
	end := make([]int32, len(h.Nodes))   // after the counting pass, where each window ends
	for i, n := range h.Nodes {
		p, ok := at[n.Under]
		if !ok {
			under[i] = -1
			tops = append(tops, n)
			continue
		}
		under[i] = p
		end[p]++
	}
	parents := 0
	for p, total := range end {
		if total > 0 {
			parents++
		}
		if p > 0 {
			end[p] += end[p-1]
		}
	}
	below := make([]Node, len(h.Nodes)-len(tops))
	for i := len(h.Nodes) - 1; i >= 0; i-- { // backwards, so each window keeps walk order
		if p := under[i]; p >= 0 {
			end[p]--
			below[end[p]] = h.Nodes[i]
		}
	}
	// end[p] is now where p's window starts; it runs to the next parent's start.
	children = make(map[int64][]Node, parents)
	for p := range h.Nodes {
		stop := int32(len(below))
		if p+1 < len(end) {
			stop = end[p+1]
		}
		if kids := below[end[p]:stop:stop]; len(kids) > 0 {
			if !slices.IsSortedFunc(kids, byID) {
				slices.SortFunc(kids, byID)
			}
			children[h.Nodes[p].ID] = kids
		}
	}
	return tops, children
}

func byID(a, b Node) int { return cmp.Compare(a.ID, b.ID) }
