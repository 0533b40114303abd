package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
)

// fleet is a synthetic fleet shaped like a real one: routers spawning workers a few levels deep,
// a few very wide routers, uncle edges across hierarchies, and one hot session that many others
// queued or interrupted. Every edge points from a lower to a higher id, so it is acyclic by
// construction and can be bulk-loaded without checks.
type fleet struct {
	sessions   []graph.ImportSession
	spawns     []graph.ImportEdge
	uncles     []graph.ImportEdge
	wide       []int64
	wideSize   int
	hot        int64
	hotSeniors int
}

var (
	roots    = []string{"zimmer-router", "zimmer", "general-agent", "fleet-maintenance"}
	geneses  = []string{"web_ui", "slack", "api", "schedule", "github_issue", "ao_event"}
	statuses = []string{"archived", "archived", "archived", "archived", "needs_input", "waiting", "running", "failed"}
)

func shape(n int, seed uint64) *fleet {
	r := rand.New(rand.NewPCG(seed, 1))
	f := &fleet{hot: int64(n), wideSize: min(5000, n/50)}
	add := func(parent int64, root string) int64 {
		id := int64(len(f.sessions) + 1)
		f.sessions = append(f.sessions, graph.ImportSession{ID: id, Title: fmt.Sprintf("Bench session %d", id),
			Status: statuses[r.IntN(len(statuses))], Genesis: geneses[r.IntN(len(geneses))], AgentRoot: root, ParentID: parent})
		if parent > 0 {
			f.spawns = append(f.spawns, graph.ImportEdge{From: parent, To: id})
		}
		return id
	}
	for range 4 {
		w := add(0, "zimmer-router")
		f.wide = append(f.wide, w)
		for range f.wideSize {
			add(w, "zimmer")
		}
	}
	for len(f.sessions) < n-1 {
		// One hierarchy: a router and 4–40 workers up to five levels deep.
		members := []int64{add(0, "zimmer-router")}
		depth := map[int64]int{members[0]: 0}
		for range 4 + r.IntN(37) {
			if len(f.sessions) >= n-1 {
				break
			}
			p := members[r.IntN(len(members))]
			if depth[p] >= 5 {
				p = members[0]
			}
			c := add(p, roots[1+r.IntN(len(roots)-1)])
			depth[c] = depth[p] + 1
			members = append(members, c)
		}
	}
	add(0, "general-agent") // the hot session, id n
	wideEnd := f.wideEnd()
	for range n / 20 { // uncle edges across hierarchies: ~5% of sessions
		a, b := 1+r.Int64N(int64(n-1)), 1+r.Int64N(int64(n-1))
		if a > b {
			a, b = b, a
		}
		if a != b && a > wideEnd { // wide routers' subtrees stay free of outgoing uncles
			f.uncles = append(f.uncles, graph.ImportEdge{From: a, To: b})
		}
	}
	for range min(1000, n/10) { // seniors of the hot session, outside the wide routers
		a := wideEnd + 1 + r.Int64N(int64(n-1)-wideEnd)
		f.uncles = append(f.uncles, graph.ImportEdge{From: a, To: f.hot})
		f.hotSeniors++
	}
	return f
}

// forget drops the lists the fleet was loaded from, keeping what the measurements use and the
// line that describes it. They are 130 MB at 1M sessions, a heap no service holds: each Go
// collection of them took 50 ms, and slowed every measurement it overlapped.
func (f *fleet) forget() string {
	line := fmt.Sprintf("%d sessions, %d spawn edges, %d uncle edges, %d wide routers of %d children, hot session #%d with %d seniors",
		len(f.sessions), len(f.spawns), len(f.uncles), len(f.wide), f.wideSize, f.hot, f.hotSeniors)
	f.sessions, f.spawns, f.uncles = nil, nil, nil
	return line
}

// wideEnd is the last id in a wide router's subtree: the wide routers and their children come first.
func (f *fleet) wideEnd() int64 { return int64(len(f.wide) * (f.wideSize + 1)) }

// uncle draws the ends of a random uncle edge as the fleet was built with them: the senior is
// neither in a wide router's subtree nor the hot session, so however many runs add edges, no
// path leads from a wide router to the hot session, and the worst-case check keeps searching
// both sides to the end.
func (f *fleet) uncle(r *rand.Rand) (senior, junior int64) {
	first := f.wideEnd() + 1
	return first + r.Int64N(f.hot-first), 1 + r.Int64N(f.hot)
}

func (f *fleet) wideChild(r *rand.Rand) int64 {
	w := f.wide[r.IntN(len(f.wide))]
	return w + 1 + r.Int64N(int64(f.wideSize))
}

// load bulk-imports the fleet in batches, with a progress bar.
func (f *fleet) load(ctx context.Context, store *graph.Store) error {
	const batch = 10_000
	total := len(f.sessions) + len(f.spawns) + len(f.uncles)
	done := 0
	for i := 0; i < len(f.sessions); i += batch {
		if err := store.ImportSessions(ctx, f.sessions[i:min(i+batch, len(f.sessions))]); err != nil {
			return err
		}
		done = min(i+batch, len(f.sessions))
		progress("sessions", done, total)
	}
	for i := 0; i < max(len(f.spawns), len(f.uncles)); i += batch {
		sp, un := f.spawns[min(i, len(f.spawns)):min(i+batch, len(f.spawns))], f.uncles[min(i, len(f.uncles)):min(i+batch, len(f.uncles))]
		if err := store.ImportEdges(ctx, sp, un); err != nil {
			return err
		}
		done += len(sp) + len(un)
		progress("edges", done, total)
	}
	fmt.Fprintln(os.Stderr)
	return nil
}

func progress(what string, done, total int) {
	const width = 40
	filled := width * done / total
	fmt.Fprintf(os.Stderr, "\rbuilding fleet [%s%s] %3d%% %d/%d rows (%s)   ",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), 100*done/total, done, total, what)
}
