package tasks_test

import (
	"context"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

func TestFreeSlotsAreTheLaneConcurrencyLessWhatWaitsOrRuns(t *testing.T) {
	r := graphtest.StartRedis(t, "free-slots-redis-pw") // a Redis of its own: the count must be exact
	q, err := tasks.OpenQueue(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	full := tasks.LaneConcurrency[tasks.LaneAgents]
	if got, err := q.FreeSlots(tasks.LaneAgents); err != nil || got != full {
		t.Fatalf("an empty lane has all %d slots free, got %d %v", full, got, err)
	}
	for i := range full + 2 {
		if _, err := q.EnqueueRunSession(ctx, tasks.RunSession{SessionID: int64(i + 1), Reason: "start"}, tasks.RunSessionTaskID(int64(i+1), "start")); err != nil {
			t.Fatal(err)
		}
		want := max(full-(i+1), 0)
		if got, err := q.FreeSlots(tasks.LaneAgents); err != nil || got != want {
			t.Fatalf("with %d waiting, want %d free, got %d %v", i+1, want, got, err)
		}
	}
}

func TestANotificationDeliveryIsQueuedOnceEvenAfterItFinished(t *testing.T) {
	r := graphtest.StartRedis(t, "delivery-once-redis-pw")
	q, err := tasks.OpenQueue(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	for range 2 {
		if err := q.EnqueueNotificationDelivery(ctx, 41); err != nil {
			t.Fatalf("queueing a delivery again is absorbed, not an error: %v", err)
		}
	}
	pending, err := q.Pending(tasks.LaneDefault, 10)
	if err != nil || len(pending) != 1 || pending[0].ID != tasks.DeliverNotificationTaskID(41) {
		t.Fatalf("want one pending delivery, got %v %v", pending, err)
	}
	for range 2 {
		if err := q.EnqueueNeedsInputPush(ctx, 7, "7-3"); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := q.TaskQueued(ctx, tasks.LaneDefault, tasks.NeedsInputPushTaskID("7-3")); err != nil || !ok {
		t.Fatalf("the debounced push is scheduled: %v %v", ok, err)
	}
}
