package web

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

// counter is a change fingerprint that changes on every read, counting the reads.
type counter struct{ reads atomic.Int64 }

func (c *counter) version(context.Context) (string, error) {
	return fmt.Sprint(c.reads.Add(1)), nil
}

func TestTheBrokerPollsOnlyWhilePagesListenAndCoalescesChanges(t *testing.T) {
	c := &counter{}
	b := newBroker(c.version, 5*time.Millisecond, slog.New(slog.DiscardHandler))
	time.Sleep(30 * time.Millisecond)
	if n := c.reads.Load(); n != 0 {
		t.Fatalf("the store was asked %d times with no page open", n)
	}
	changes, done, ok := b.subscribe()
	if !ok {
		t.Fatal("the first page was refused")
	}
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("a change was not announced")
	}
	time.Sleep(30 * time.Millisecond) // several changes while the page is not reading…
	if len(changes) != 1 {
		t.Fatalf("…are one pending notice, not %d", len(changes))
	}
	done()
	time.Sleep(20 * time.Millisecond) // a read already under way may finish
	stopped := c.reads.Load()
	time.Sleep(50 * time.Millisecond)
	if n := c.reads.Load(); n != stopped {
		t.Fatalf("the poller kept reading after the last page left (%d → %d)", stopped, n)
	}
}

func TestTheBrokerRefusesPagesPastItsBound(t *testing.T) {
	b := newBroker((&counter{}).version, time.Hour, slog.New(slog.DiscardHandler))
	var dones []func()
	for range maxLive {
		_, done, ok := b.subscribe()
		if !ok {
			t.Fatalf("page %d of %d refused", len(dones)+1, maxLive)
		}
		dones = append(dones, done)
	}
	if _, _, ok := b.subscribe(); ok {
		t.Fatal("a page past the bound was admitted")
	}
	dones[0]()
	_, done, ok := b.subscribe()
	if !ok {
		t.Fatal("a page that left frees its place")
	}
	done()
	for _, d := range dones[1:] {
		d()
	}
	if b.stop != nil {
		t.Fatal("the poller still runs with no page open")
	}
}
