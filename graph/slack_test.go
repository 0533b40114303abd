package graph_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

func TestASlackEventIsClaimedOnce(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	claim := func(id string, ttl time.Duration) bool {
		t.Helper()
		_, ok, err := store.ClaimSlackEvent(ctx, id, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	t.Run("concurrent claims of one id: exactly one wins", func(t *testing.T) {
		id := graphtest.Unique(t, "Ev")
		var won atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if _, ok, err := store.ClaimSlackEvent(ctx, id, time.Hour); err == nil && ok {
					won.Add(1)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("%d claims won", won.Load())
		}
	})
	t.Run("a released claim can be made again", func(t *testing.T) {
		id := graphtest.Unique(t, "Ev")
		c, ok, err := store.ClaimSlackEvent(ctx, id, time.Hour)
		if err != nil || !ok {
			t.Fatalf("first claim: %v %v", ok, err)
		}
		if err := store.ReleaseSlackEvent(ctx, c); err != nil {
			t.Fatal(err)
		}
		if !claim(id, time.Hour) {
			t.Fatal("a released id stayed marked")
		}
	})
	t.Run("an expired mark is forgotten", func(t *testing.T) {
		id := graphtest.Unique(t, "Ev")
		if !claim(id, time.Hour) {
			t.Fatal("first claim lost")
		}
		time.Sleep(10 * time.Millisecond)
		if !claim(id, time.Millisecond) {
			t.Fatal("a mark older than the TTL still refused the id")
		}
	})
}
