package lineage

import (
	"fmt"
	"slices"
)

// Bounds of every walk, up and down.
const (
	MaxDepth = 8
	MaxNodes = 150
)

// TruncationReason is the note every surface shows when a bound was hit.
var TruncationReason = fmt.Sprintf("Showing at most %d sessions, %d levels from the highest ancestor reached. This tree is larger.", MaxNodes, MaxDepth)

// NodeData is what the walk needs to know about one session.
type NodeData struct {
	ID        int64
	Title     string
	AgentRoot string // "" when the session names no root
	Status    string
	Genesis   string
	Class     string
	ParentID  *int64  // the lineage parent, when it exists
	UncleIDs  []int64 // every recorded senior by uncle edge
}

// Edge kinds a junior can be reached by.
const (
	KindSpawn = "SPAWNED"
	KindUncle = "UNCLE_OF"
)

// Link is one edge seen from one end.
type Link struct {
	From, To int64
	Kind     string
}

// Source answers the walk's questions about the graph, a level at a time.
type Source interface {
	// SpawnChain returns id and then its spawn ancestors, nearest first: at least MaxDepth+2
	// ids when the chain is that long (to tell a cut chain from a complete one); none when id
	// does not exist.
	SpawnChain(id int64) ([]int64, error)
	// Seniors returns every spawn parent and uncle of the given sessions (From is the senior).
	Seniors(ids []int64) ([]Link, error)
	// Juniors returns the spawn children and uncle juniors of the given sessions that are not
	// in seen — every link to each of the limit lowest-id such juniors (From is the senior).
	Juniors(ids, seen []int64, limit int) ([]Link, error)
	// Nodes loads the sessions that exist among ids.
	Nodes(ids []int64) (map[int64]NodeData, error)
}

// Node is one session placed in a hierarchy.
type Node struct {
	NodeData
	Depth   int
	Current bool
	// InGraphUncles are the uncles that are themselves in this hierarchy, ascending.
	InGraphUncles []int64
	// Under is the node this one is drawn under in the outline (0 for a root).
	Under int64
}

// Hierarchy is the bounded lineage graph around one session.
type Hierarchy struct {
	SessionID int64
	OriginID  int64
	RootIDs   []int64
	Truncated bool
	Nodes     []Node // breadth-first: roots, then each level by id
}

// Reason is the truncation note, or "" when the walk was complete.
func (h *Hierarchy) Reason() string {
	if h.Truncated {
		return TruncationReason
	}
	return ""
}

// Solitary reports a session alone in its tree.
func (h *Hierarchy) Solitary() bool { return len(h.Nodes) <= 1 }

// SessionIDs lists every session in the hierarchy (the scope of human-message gathering).
func (h *Hierarchy) SessionIDs() []int64 {
	ids := make([]int64, len(h.Nodes))
	for i, n := range h.Nodes {
		ids[i] = n.ID
	}
	return ids
}

// HasUncleEdges reports whether any node shows an in-graph uncle.
func (h *Hierarchy) HasUncleEdges() bool {
	for _, n := range h.Nodes {
		if len(n.InGraphUncles) > 0 {
			return true
		}
	}
	return false
}

// Walk builds the hierarchy of session id: its spawn origin, every root reachable upward over
// both edge kinds, and everything below those roots, each session once at its shallowest depth.
func Walk(src Source, id int64) (*Hierarchy, error) {
	chain, err := src.SpawnChain(id)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("walk session %d: not found", id)
	}
	origin := chain[min(len(chain)-1, MaxDepth)]
	h := &Hierarchy{SessionID: id, OriginID: origin, Truncated: len(chain) > MaxDepth+1}
	anchors, err := walkUp(src, id, h)
	if err != nil {
		return nil, err
	}
	h.RootIDs = append([]int64{origin}, anchors...)
	h.RootIDs = dedupe(h.RootIDs)
	if err := walkDown(src, h); err != nil {
		return nil, err
	}
	return h, nil
}

// walkUp runs the upward breadth-first walk and returns the anchors: the topmost sessions found
// (no senior at all) plus, when a bound stopped the walk, the frontier it stalled on; sorted.
func walkUp(src Source, id int64, h *Hierarchy) ([]int64, error) {
	seen := map[int64]bool{id: true}
	frontier := []int64{id}
	var topmost, stalled []int64
	for depth := 1; len(frontier) > 0; depth++ {
		links, err := src.Seniors(frontier)
		if err != nil {
			return nil, err
		}
		hasSenior := map[int64]bool{}
		var next []int64
		for _, l := range links {
			hasSenior[l.To] = true
			if !seen[l.From] && !slices.Contains(next, l.From) {
				next = append(next, l.From)
			}
		}
		for _, f := range frontier {
			if !hasSenior[f] {
				topmost = append(topmost, f)
			}
		}
		if len(next) == 0 {
			break
		}
		if depth > MaxDepth || len(seen)+len(next) > MaxNodes {
			stalled = append(stalled, frontier...)
			h.Truncated = true
			break
		}
		for _, n := range next {
			seen[n] = true
		}
		frontier = next
	}
	anchors := append(topmost, stalled...)
	slices.Sort(anchors)
	return dedupe(anchors), nil
}

// walkDown collects the roots and everything below them, breadth-first, admitting juniors in id
// order until MaxNodes, MaxDepth levels deep; the asked-for session is always included.
func walkDown(src Source, h *Hierarchy) error {
	depth := map[int64]int{}
	under := map[int64]int64{}
	order := slices.Clone(h.RootIDs)
	for _, r := range h.RootIDs {
		depth[r] = 0
	}
	frontier := slices.Clone(h.RootIDs)
	for level := 1; len(frontier) > 0; level++ {
		// One more than can be admitted, so a cut level is known to be cut.
		links, err := src.Juniors(frontier, order, MaxNodes-len(order)+1)
		if err != nil {
			return err
		}
		juniors, parents := nextLevel(links, depth)
		if len(juniors) == 0 {
			break
		}
		if level > MaxDepth {
			h.Truncated = true
			break
		}
		frontier = frontier[:0]
		for _, j := range juniors {
			if len(order) >= MaxNodes {
				h.Truncated = true
				return h.load(src, order, depth, under)
			}
			depth[j], under[j] = level, parents[j]
			order = append(order, j)
			frontier = append(frontier, j)
		}
	}
	return h.load(src, order, depth, under)
}

// nextLevel returns the unseen juniors sorted by id, and for each the frontier node it is drawn
// under: its spawn parent when that reached it, else the lowest-id uncle that did.
func nextLevel(links []Link, seen map[int64]int) ([]int64, map[int64]int64) {
	best := map[int64]Link{}
	var juniors []int64
	for _, l := range links {
		if _, ok := seen[l.To]; ok {
			continue
		}
		cur, found := best[l.To]
		if !found {
			juniors = append(juniors, l.To)
		}
		if !found || drawsBetter(l, cur) {
			best[l.To] = l
		}
	}
	slices.Sort(juniors)
	parents := make(map[int64]int64, len(best))
	for id, l := range best {
		parents[id] = l.From
	}
	return juniors, parents
}

// drawsBetter prefers a spawn edge over an uncle edge, then the lower senior id.
func drawsBetter(l, cur Link) bool {
	if (l.Kind == KindSpawn) != (cur.Kind == KindSpawn) {
		return l.Kind == KindSpawn
	}
	return l.From < cur.From
}

// load fetches node data for the collected ids, appends the asked-for session when the bounds
// cut it off, and fills depth, uncles in the graph and the current marker.
func (h *Hierarchy) load(src Source, order []int64, depth map[int64]int, under map[int64]int64) error {
	if _, ok := depth[h.SessionID]; !ok {
		last := 0
		if len(order) > 0 {
			last = depth[order[len(order)-1]]
		}
		depth[h.SessionID] = last + 1
		if len(order) > 0 {
			under[h.SessionID] = order[len(order)-1]
		}
		order = append(order, h.SessionID)
		h.Truncated = true
	}
	data, err := src.Nodes(order)
	if err != nil {
		return err
	}
	for _, id := range order {
		d, ok := data[id]
		if !ok {
			continue // deleted between levels: a dead pointer, not a node
		}
		h.Nodes = append(h.Nodes, Node{NodeData: d, Depth: depth[id], Under: under[id]})
	}
	h.Complete()
	return nil
}

// Complete fills in what follows from the node set alone: the current marker, each node's
// uncles that are themselves in the hierarchy, ascending, and the node each junior is drawn
// under where the walk left that unset. A junior was reached from the level just above it, so
// it is drawn under its spawn parent when that is one level up, else under its lowest-id uncle
// one level up: what walkDown records, derived again.
func (h *Hierarchy) Complete() {
	depth := make(map[int64]int, len(h.Nodes))
	for _, n := range h.Nodes {
		depth[n.ID] = n.Depth
	}
	for i := range h.Nodes {
		n := &h.Nodes[i]
		n.Current = n.ID == h.SessionID
		n.InGraphUncles = nil
		for _, u := range n.UncleIDs {
			if _, in := depth[u]; in {
				n.InGraphUncles = append(n.InGraphUncles, u)
			}
		}
		slices.Sort(n.InGraphUncles)
		if n.Under == 0 && n.Depth > 0 {
			n.Under = drawnUnder(n, depth)
		}
	}
}

// drawnUnder is the senior one level above n that the walk reached n from, as nextLevel picks it.
func drawnUnder(n *Node, depth map[int64]int) int64 {
	above := func(id int64) bool { d, in := depth[id]; return in && d == n.Depth-1 }
	if n.ParentID != nil && above(*n.ParentID) {
		return *n.ParentID
	}
	for _, u := range n.InGraphUncles { // ascending
		if above(u) {
			return u
		}
	}
	return 0
}

func dedupe(ids []int64) []int64 {
	seen := map[int64]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
