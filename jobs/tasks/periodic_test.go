package tasks_test

import (
	"context"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// redisDB is this package's own Redis database.
const redisDB = 14

func TestASlotIsEnqueuedOnceWhateverTheNumberOfWorkers(t *testing.T) {
	graphtest.FlushRedis(t, redisDB)
	q, err := tasks.OpenQueue(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	p := tasks.Periodic{Type: "test:tick", Lane: tasks.LaneMaintenance, Every: time.Hour}
	at := time.Date(2026, 1, 1, 10, 15, 0, 0, time.UTC)
	for i, want := range []bool{true, false, false} {
		got, err := q.EnqueueSlot(context.Background(), p, at.Add(time.Duration(i)*10*time.Minute))
		if err != nil || got != want {
			t.Fatalf("enqueue %d in the same slot: %v %v, want %v", i, got, err, want)
		}
	}
	if got, _ := q.EnqueueSlot(context.Background(), p, at.Add(time.Hour)); !got {
		t.Fatal("the next slot is a new tick")
	}
}
