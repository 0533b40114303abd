package graph_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

// queueOf appends the given contents to a fresh session and returns its id and message ids.
func queueOf(t *testing.T, store *graph.Store, contents ...string) (int64, []int64) {
	t.Helper()
	s := graphtest.Session(t, store, nil)
	key := s.ID
	var ids []int64
	for _, c := range contents {
		m, _, err := store.CreateMessage(context.Background(), key, session.NewMessage{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	return key, ids
}

// order is the queue's contents in position order, checking positions are exactly 1..n.
func order(t *testing.T, store *graph.Store, key int64) []string {
	t.Helper()
	list, total, err := store.ListMessages(context.Background(), key, "", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if total != len(list) {
		t.Fatalf("total %d but %d listed", total, len(list))
	}
	out := make([]string, 0, len(list))
	for i, m := range list {
		if m.Position != int64(i+1) {
			t.Fatalf("positions must be 1..n without gaps: %d at index %d", m.Position, i)
		}
		out = append(out, m.Content)
	}
	return out
}

func TestQueuePositionsStayContiguousThroughDeletesAndReorders(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	tests := []struct {
		name string
		op   func(key int64, ids []int64) error
		want []string
	}{
		{"appends take the next position", func(int64, []int64) error { return nil }, []string{"a", "b", "c", "d"}},
		{"deleting the first shifts the rest up", func(k int64, ids []int64) error { return store.DeleteMessage(ctx, k, ids[0]) }, []string{"b", "c", "d"}},
		{"deleting a middle one renumbers the tail", func(k int64, ids []int64) error { return store.DeleteMessage(ctx, k, ids[1]) }, []string{"a", "c", "d"}},
		{"deleting the last leaves the rest", func(k int64, ids []int64) error { return store.DeleteMessage(ctx, k, ids[3]) }, []string{"a", "b", "c"}},
		{"moving the last to the front shifts the others down", func(k int64, ids []int64) error {
			_, err := store.ReorderMessage(ctx, k, ids[3], 1)
			return err
		}, []string{"d", "a", "b", "c"}},
		{"moving the first back shifts the others up", func(k int64, ids []int64) error {
			_, err := store.ReorderMessage(ctx, k, ids[0], 3)
			return err
		}, []string{"b", "c", "a", "d"}},
		{"moving past the end means last", func(k int64, ids []int64) error {
			_, err := store.ReorderMessage(ctx, k, ids[1], 99)
			return err
		}, []string{"a", "c", "d", "b"}},
		{"moving to its own place changes nothing", func(k int64, ids []int64) error {
			_, err := store.ReorderMessage(ctx, k, ids[2], 3)
			return err
		}, []string{"a", "b", "c", "d"}},
		{"an append after a delete goes to the end", func(k int64, ids []int64) error {
			if err := store.DeleteMessage(ctx, k, ids[1]); err != nil {
				return err
			}
			_, _, err := store.CreateMessage(ctx, k, session.NewMessage{Content: "e"})
			return err
		}, []string{"a", "c", "d", "e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, ids := queueOf(t, store, "a", "b", "c", "d")
			if err := tc.op(key, ids); err != nil {
				t.Fatal(err)
			}
			if got := order(t, store, key); !slices.Equal(got, tc.want) {
				t.Fatalf("queue %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReorderRefusesAPositionBelowOne(t *testing.T) {
	store := graphtest.Store(t)
	key, ids := queueOf(t, store, "a", "b")
	if _, err := store.ReorderMessage(context.Background(), key, ids[0], 0); !errors.Is(err, graph.ErrInvalid) {
		t.Fatalf("want ErrInvalid, got %v", err)
	}
}

func TestTwentyConcurrentAppendsTakePositionsOneToTwenty(t *testing.T) {
	store := graphtest.Store(t)
	key, _ := queueOf(t, store)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, _, err := store.CreateMessage(context.Background(), key, session.NewMessage{Content: fmt.Sprint("m", i)})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := order(t, store, key); len(got) != n {
		t.Fatalf("%d messages, want %d", len(got), n)
	}
}

func TestClaimNextHandsEachPendingMessageOutExactlyOnceInOrder(t *testing.T) {
	store := graphtest.Store(t)
	key, ids := queueOf(t, store, "first", "second", "third")
	const claimers = 10
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		claimed []int64
	)
	for range claimers {
		wg.Go(func() {
			m, err := store.ClaimNextMessage(context.Background(), key)
			if errors.Is(err, graph.ErrMessageNotFound) {
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			claimed = append(claimed, m.ID)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(claimed)
	if !slices.Equal(claimed, ids) {
		t.Fatalf("claimed %v, want each of %v once", claimed, ids)
	}
	if n, _ := store.CountPendingMessages(context.Background(), key); n != 0 {
		t.Fatalf("%d still pending after every message was claimed", n)
	}
}

func TestClaimTakesTheLowestPositionNotTheOldest(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	key, ids := queueOf(t, store, "old", "new")
	if _, err := store.ReorderMessage(ctx, key, ids[1], 1); err != nil {
		t.Fatal(err)
	}
	m, err := store.ClaimNextMessage(ctx, key)
	if err != nil || m.ID != ids[1] || m.Status != session.MessageProcessing {
		t.Fatalf("claimed %+v, %v; want message %d processing", m, err, ids[1])
	}
}

func TestRetirePendingMarksOnlyPendingUndelivered(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	key, _ := queueOf(t, store, "a", "b", "c")
	claimed, _ := store.ClaimNextMessage(ctx, key)
	n, err := store.RetirePendingMessages(ctx, key)
	if err != nil || n != 2 {
		t.Fatalf("retired %d, %v; want 2", n, err)
	}
	list, _, _ := store.ListMessages(ctx, key, session.MessageUndelivered, 0, 10)
	if len(list) != 2 {
		t.Fatalf("%d undelivered, want 2", len(list))
	}
	still, _ := store.GetMessage(ctx, key, claimed.ID)
	if still.Status != session.MessageProcessing {
		t.Fatalf("a claimed message is not retired, got %s", still.Status)
	}
	if p, _ := store.CountPendingMessages(ctx, key); p != 0 {
		t.Fatalf("%d pending after retiring", p)
	}
}

func TestListMessagesFiltersByStatusAndPages(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	key, _ := queueOf(t, store, "a", "b", "c", "d", "e")
	if _, err := store.ClaimNextMessage(ctx, key); err != nil {
		t.Fatal(err)
	}
	page, total, err := store.ListMessages(ctx, key, session.MessagePending, 2, 2)
	if err != nil || total != 4 || len(page) != 2 || page[0].Content != "d" || page[1].Content != "e" {
		t.Fatalf("page %v total %d err %v", page, total, err)
	}
}

func TestAMessageIsFoundOnlyUnderItsOwnSession(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	_, ids := queueOf(t, store, "mine")
	other, _ := queueOf(t, store)
	if _, err := store.GetMessage(ctx, other, ids[0]); !errors.Is(err, graph.ErrMessageNotFound) {
		t.Fatalf("want ErrMessageNotFound, got %v", err)
	}
	if err := store.DeleteMessage(ctx, other, ids[0]); !errors.Is(err, graph.ErrMessageNotFound) {
		t.Fatalf("delete under another session: %v", err)
	}
	if _, _, err := store.CreateMessage(ctx, 999999999999, session.NewMessage{Content: "x"}); !errors.Is(err, graph.ErrNotFound) || errors.Is(err, graph.ErrMessageNotFound) {
		t.Fatalf("an unknown session is ErrNotFound but not a missing message: %v", err)
	}
}

func TestMessageRoundTripsItsFieldsAndAnUpdateCanClearTheGoal(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	key := s.ID
	m, _, err := store.CreateMessage(ctx, key, session.NewMessage{Content: "hello", Goal: ptr("ship it")})
	if err != nil {
		t.Fatal(err)
	}
	if m.SessionID != s.ID || m.Content != "hello" || *m.Goal != "ship it" || m.Position != 1 ||
		m.Status != session.MessagePending || m.Origin != session.OriginCaller || m.CreatedAt.IsZero() {
		t.Fatalf("stored %+v", m)
	}
	updated, err := store.UpdateMessage(ctx, key, m.ID, func(u *session.Message) error {
		u.Content, u.Goal = "hello again", nil
		return nil
	})
	if err != nil || updated.Content != "hello again" || updated.Goal != nil {
		t.Fatalf("updated %+v %v", updated, err)
	}
}

func TestDeletingASessionDeletesItsMessages(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	key, ids := queueOf(t, store, "a")
	if _, err := store.DeleteSession(ctx, key); err != nil {
		t.Fatal(err)
	}
	fresh, _ := queueOf(t, store)
	if _, err := store.GetMessage(ctx, fresh, ids[0]); !errors.Is(err, graph.ErrMessageNotFound) {
		t.Fatalf("want ErrMessageNotFound, got %v", err)
	}
}

func TestArchiveAndQueueChangeInOneTransaction(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	key, _ := queueOf(t, store, "a", "b")
	boom := errors.New("refused")
	_, err := store.UpdateSessionWithQueue(ctx, key, func(u *session.Session, q *graph.MessageQueue) error {
		if _, err := q.RetirePending(); err != nil {
			return err
		}
		u.Status = session.StatusArchived
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("want the mutate error, got %v", err)
	}
	if n, _ := store.CountPendingMessages(ctx, key); n != 2 {
		t.Fatalf("a refused update rolls back its queue changes too: %d pending", n)
	}
}
