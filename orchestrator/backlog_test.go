package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

func backlogSetup(t *testing.T) orchestratortest.Env {
	t.Helper()
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	orchestratortest.ExclusiveBacklog(t, e)
	return e
}

func appendItem(t *testing.T, ops *orchestrator.Service, name, band string) session.BacklogItem {
	t.Helper()
	it, err := ops.AppendBacklogItem(context.Background(), orchestrator.BacklogAppend{
		IssueURL: "https://github.com/example/repo/issues/" + name, Title: name, Band: band, AddedBy: "test"})
	if err != nil {
		t.Fatalf("append %s: %v", name, err)
	}
	return it
}

// order is the queue as "title title …", failing unless the ranks are exactly 1..n.
func order(t *testing.T, ops *orchestrator.Service) string {
	t.Helper()
	queue, err := ops.Backlog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, it := range queue {
		if it.Rank != int64(i+1) {
			t.Fatalf("rank of the item at position %d is %d: ranks must be 1..n without gaps or repeats", i+1, it.Rank)
		}
		names = append(names, it.Title)
	}
	return strings.Join(names, " ")
}

func TestAppendPlacesByBandAndNeverAboveAPin(t *testing.T) {
	e := backlogSetup(t)
	ctx := context.Background()
	appendItem(t, e.Ops, "n1", "normal")
	appendItem(t, e.Ops, "l1", "low")
	appendItem(t, e.Ops, "u1", "urgent")
	appendItem(t, e.Ops, "n2", "")
	h1 := appendItem(t, e.Ops, "h1", "high")
	if got, want := order(t, e.Ops), "u1 h1 n1 n2 l1"; got != want {
		t.Fatalf("band order: got %q, want %q", got, want)
	}
	if h1.Rank != 2 {
		t.Errorf("the appended item reports its position: got %d, want 2", h1.Rank)
	}
	// A human puts the low item on top and pins it: an urgent append lands below it.
	l1 := mustFind(t, e.Ops, "l1")
	if _, err := e.Ops.PlaceBacklogItem(ctx, l1.ID, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Ops.PinBacklogItem(ctx, l1.ID, true); err != nil {
		t.Fatal(err)
	}
	appendItem(t, e.Ops, "u2", "urgent")
	if got, want := order(t, e.Ops), "l1 u1 u2 h1 n1 n2"; got != want {
		t.Fatalf("after a pin: got %q, want %q", got, want)
	}
}

func mustFind(t *testing.T, ops *orchestrator.Service, title string) session.BacklogItem {
	t.Helper()
	queue, _ := ops.Backlog(context.Background())
	for _, it := range queue {
		if it.Title == title {
			return it
		}
	}
	t.Fatalf("%s is not on the backlog", title)
	return session.BacklogItem{}
}

func TestAppendRefusesWhatItCannotPlace(t *testing.T) {
	e := backlogSetup(t)
	appendItem(t, e.Ops, "dup", "normal")
	cases := []struct {
		name string
		a    orchestrator.BacklogAppend
		want string
	}{
		{"blank url", orchestrator.BacklogAppend{}, "issue_url can't be blank"},
		{"not a url", orchestrator.BacklogAppend{IssueURL: "issue 12"}, "issue_url must be an http(s) URL"},
		{"unknown band", orchestrator.BacklogAppend{IssueURL: "https://x/1", Band: "someday"}, `band must be one of urgent, high, normal, low (got "someday")`},
		{"already queued", orchestrator.BacklogAppend{IssueURL: "https://github.com/example/repo/issues/dup"}, "Already on the backlog: https://github.com/example/repo/issues/dup is item #"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.Ops.AppendBacklogItem(context.Background(), c.a)
			if !errors.Is(err, orchestrator.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	if got := order(t, e.Ops); got != "dup" {
		t.Fatalf("a refused append writes nothing: %q", got)
	}
}

func TestPullStartsSpotChildrenOfTheCallerWithSpawnEdges(t *testing.T) {
	e := backlogSetup(t)
	ctx := context.Background()
	caller := graphtest.Session(t, e.Store, nil)
	gone := appendItem(t, e.Ops, "gone", "urgent")
	appendItem(t, e.Ops, "a", "normal")
	appendItem(t, e.Ops, "b", "normal")
	appendItem(t, e.Ops, "c", "normal")

	out, err := e.Ops.PullBacklog(ctx, caller.ID, 2, []orchestrator.BacklogRemoval{{ItemID: gone.ID, Reason: "issue_closed"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Removed) != 1 || out.Removed[0].RemovedReason != "issue_closed" || len(out.Started) != 2 || out.Left != 1 {
		t.Fatalf("pull: %+v", out)
	}
	for i, st := range out.Started {
		if st.Err != nil {
			t.Fatalf("start %d: %v", i, st.Err)
		}
		child := st.Session
		if child.ParentSessionID == nil || *child.ParentSessionID != caller.ID || child.PriorityClass() != "spot" ||
			child.AgentRoot() != orchestrator.BacklogRoot {
			t.Errorf("child %d: parent %v, class %s, root %s", child.ID, child.ParentSessionID, child.PriorityClass(), child.AgentRoot())
		}
		_, h, err := e.Ops.Hierarchy(ctx, child.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(h.RootIDs, caller.ID) {
			t.Errorf("child %d is not under the caller by a spawn edge: roots %v", child.ID, h.RootIDs)
		}
		row, err := e.Store.BacklogItem(ctx, st.Item.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.Status != session.BacklogStarted || row.SessionID == nil || *row.SessionID != child.ID || *row.PulledBy != caller.ID {
			t.Errorf("the row records the session: %+v", row)
		}
	}
	if got := []string{out.Started[0].Item.Title, out.Started[1].Item.Title}; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("a pull takes the top items in order: %v", got)
	}
	if got := order(t, e.Ops); got != "c" {
		t.Errorf("left: %q", got)
	}
}

func TestPullRefusesARemovalWithoutAnObservedReasonAndWritesNothing(t *testing.T) {
	e := backlogSetup(t)
	caller := graphtest.Session(t, e.Store, nil)
	it := appendItem(t, e.Ops, "keep", "normal")
	for _, r := range []orchestrator.BacklogRemoval{{ItemID: it.ID, Reason: "not_worth_it"}, {ItemID: it.ID + 1000, Reason: "duplicate"}} {
		_, err := e.Ops.PullBacklog(context.Background(), caller.ID, 1, []orchestrator.BacklogRemoval{r})
		if !errors.Is(err, orchestrator.ErrInvalid) {
			t.Fatalf("%+v: got %v", r, err)
		}
	}
	if got := order(t, e.Ops); got != "keep" {
		t.Fatalf("a refused pull writes nothing: %q", got)
	}
}

func TestRankStaysContiguousUnder16ConcurrentAppendsAndPulls(t *testing.T) {
	e := backlogSetup(t)
	ctx := context.Background()
	caller := graphtest.Session(t, e.Store, nil)
	for i := range 8 {
		appendItem(t, e.Ops, fmt.Sprintf("seed%d", i), session.BacklogBands[i%len(session.BacklogBands)])
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		started []int64
	)
	for i := range 16 {
		wg.Go(func() {
			if i%2 == 0 {
				appendItem(t, e.Ops, fmt.Sprintf("new%d", i), session.BacklogBands[i%len(session.BacklogBands)])
				return
			}
			out, err := e.Ops.PullBacklog(ctx, caller.ID, 1, nil)
			if err != nil {
				t.Errorf("pull: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, st := range out.Started {
				if st.Err != nil {
					t.Errorf("start: %v", st.Err)
					continue
				}
				started = append(started, st.Item.ID)
			}
		})
	}
	wg.Wait()
	left := strings.Fields(order(t, e.Ops)) // fails unless ranks are 1..n
	if len(started) != 8 || len(left) != 8 {
		t.Fatalf("16 items in, 8 pulls: %d started, %d left", len(started), len(left))
	}
	slices.Sort(started)
	if len(slices.Compact(started)) != 8 {
		t.Fatalf("an item was started twice: %v", started)
	}
}

func TestTheHumansLevers(t *testing.T) {
	e := backlogSetup(t)
	ctx := context.Background()
	a := appendItem(t, e.Ops, "a", "normal")
	b := appendItem(t, e.Ops, "b", "normal")
	appendItem(t, e.Ops, "c", "normal")
	if _, err := e.Ops.PlaceBacklogItem(ctx, b.ID, 99); err != nil {
		t.Fatal(err)
	}
	if got := order(t, e.Ops); got != "a c b" {
		t.Fatalf("place past the end is the end: %q", got)
	}
	if _, err := e.Ops.RemoveBacklogItem(ctx, a.ID, " ", "tadasant"); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("a removal needs a reason: %v", err)
	}
	removed, err := e.Ops.RemoveBacklogItem(ctx, a.ID, "superseded by the redesign", "tadasant")
	if err != nil || removed.RemovedReason != "superseded by the redesign (by tadasant)" {
		t.Fatalf("remove: %+v %v", removed, err)
	}
	st, err := e.Ops.StartBacklogItemAsPriority(ctx, b.ID, "tadasant")
	if err != nil {
		t.Fatal(err)
	}
	if st.Session.PriorityClass() != "priority" || st.Session.ParentSessionID != nil || st.Item.StartedBy != "tadasant" {
		t.Fatalf("start as priority: class %s, parent %v, by %q", st.Session.PriorityClass(), st.Session.ParentSessionID, st.Item.StartedBy)
	}
	if _, err := e.Ops.PinBacklogItem(ctx, a.ID, true); !errors.Is(err, orchestrator.ErrBacklogItemNotFound) {
		t.Fatalf("a lever on an item no longer queued: %v", err)
	}
	if got := order(t, e.Ops); got != "c" {
		t.Fatalf("left: %q", got)
	}
}

func TestTheBacklogJobKeepsItsQuotaOfLiveSessions(t *testing.T) {
	e := backlogSetup(t)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		appendItem(t, e.Ops, n, "normal")
	}
	first, err := e.Ops.RunBacklogJob(ctx)
	if err != nil || len(first) != orchestrator.BacklogJobLimit {
		t.Fatalf("first run: %d started, %v", len(first), err)
	}
	for _, st := range first {
		if st.Session.ParentSessionID != nil || st.Session.PriorityClass() != "spot" || st.Item.StartedBy != session.BacklogStartedByJob {
			t.Errorf("an unattended start is a parentless spot session: %+v", st.Item)
		}
	}
	again, err := e.Ops.RunBacklogJob(ctx)
	if err != nil || len(again) != 0 {
		t.Fatalf("with its quota live the job starts nothing: %d, %v", len(again), err)
	}
	if _, err := e.Ops.Archive(ctx, first[0].Session.ID, orchestrator.ArchiveParams{Force: true, Actor: "the test"}); err != nil {
		t.Fatal(err)
	}
	third, err := e.Ops.RunBacklogJob(ctx)
	if err != nil || len(third) != 1 || third[0].Item.Title != "c" {
		t.Fatalf("an archived session frees a place: %+v, %v", third, err)
	}
}
