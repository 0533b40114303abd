package graph_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

func notify(t *testing.T, store *graph.Store, sessionID int64, key string) *session.Notification {
	t.Helper()
	n, _, err := store.CreateNotification(context.Background(), graph.NewNotification{SessionID: sessionID, Key: key, Type: session.NotifySessionFailed})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestANotificationKeyIsRecordedOnceEvenUnderConcurrentRedelivery(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	store := graphtest.Store(t)
	s := graphtest.Session(t, store, nil)
	key := graphtest.Unique(t, "batch")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[int64]bool{}
		created int
	)
	for range 8 {
		wg.Go(func() {
			n, made, err := store.CreateNotification(context.Background(), graph.NewNotification{SessionID: s.ID, Key: key, Type: session.NotifyNeedsInput})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ids[n.ID] = true
			if made {
				created++
			}
		})
	}
	wg.Wait()
	if len(ids) != 1 || created != 1 {
		t.Fatalf("eight deliveries of one key made %d notifications (%d reported created); want exactly one", len(ids), created)
	}
	for id := range ids {
		n, err := store.GetNotification(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if n.SessionID != s.ID || n.Type != session.NotifyNeedsInput || n.Read || n.Stale || n.Delivery != session.DeliveryPending || n.Session == nil || n.Session.ID != s.ID {
			t.Fatalf("recorded %+v", n)
		}
	}
}

func TestANotificationForAMissingSessionIsNotFound(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	store := graphtest.Store(t)
	_, _, err := store.CreateNotification(context.Background(), graph.NewNotification{SessionID: -42, Key: graphtest.Unique(t, "k"), Type: session.NotifySessionFailed})
	if !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("want ErrNotFound, got %v", err)
	}
}

func TestStaleAndDeleteSpareNotificationsNewerThanTheTransition(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	old := notify(t, store, s.ID, graphtest.Unique(t, "old"))
	cut := time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	newer := notify(t, store, s.ID, graphtest.Unique(t, "new"))
	if n, err := store.MarkSessionNotificationsStale(ctx, s.ID, cut); err != nil || n != 1 {
		t.Fatalf("marked %d, %v; want the one created before the transition", n, err)
	}
	for _, c := range []struct {
		id    int64
		stale bool
	}{{old.ID, true}, {newer.ID, false}} {
		got, err := store.GetNotification(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Stale != c.stale {
			t.Errorf("notification %d stale=%v, want %v", c.id, got.Stale, c.stale)
		}
	}
	if n, err := store.DeleteSessionNotifications(ctx, s.ID, cut); err != nil || n != 1 {
		t.Fatalf("deleted %d, %v; want the one created before the archive", n, err)
	}
	if _, err := store.GetNotification(ctx, old.ID); !errors.Is(err, graph.ErrNotificationNotFound) {
		t.Fatalf("the old notification must be gone: %v", err)
	}
	if _, err := store.GetNotification(ctx, newer.ID); err != nil {
		t.Fatalf("the newer notification must stay: %v", err)
	}
}

func TestDismissRefusesAnUnreadNotificationAndDeletesARead(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	n := notify(t, store, s.ID, graphtest.Unique(t, "d"))
	if ok, err := store.DismissNotification(ctx, n.ID); err != nil || ok {
		t.Fatalf("dismissing an unread notification: %v, %v; want refused", ok, err)
	}
	if _, err := store.MarkNotificationRead(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.DismissNotification(ctx, n.ID); err != nil || !ok {
		t.Fatalf("dismissing a read notification: %v, %v", ok, err)
	}
	if _, err := store.DismissNotification(ctx, n.ID); !errors.Is(err, graph.ErrNotificationNotFound) {
		t.Fatalf("a dismissed notification is gone: %v", err)
	}
}

func TestDeletingASessionDeletesItsNotifications(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	store := graphtest.Store(t)
	ctx := context.Background()
	s := graphtest.Session(t, store, nil)
	n := notify(t, store, s.ID, graphtest.Unique(t, "cascade"))
	if _, err := store.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetNotification(ctx, n.ID); !errors.Is(err, graph.ErrNotificationNotFound) {
		t.Fatalf("a deleted session's notification must go with it: %v", err)
	}
}
