package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs"
)

// redisDB is this package's own Redis database.
const redisDB = 11

func openQueue(t *testing.T) *jobs.Queue {
	t.Helper()
	opt, err := redis.ParseURL(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	q, err := jobs.OpenQueue(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func TestASlotIsEnqueuedOnceWhateverTheNumberOfWorkers(t *testing.T) {
	q := openQueue(t)
	p := jobs.Periodic{Type: "test:tick", Lane: jobs.LaneMaintenance, Every: time.Hour}
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

// Two workers with the same periodic job run each tick once between them.
func TestTwoWorkersRunEachTickOnce(t *testing.T) {
	q := openQueue(t)
	var mu sync.Mutex
	ran := map[string]int{}
	handler := func(ctx context.Context, _ *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		mu.Lock()
		ran[id]++
		mu.Unlock()
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		w := jobs.NewWorker(q, graphtest.Logger(), time.Second)
		w.Every(jobs.LaneMaintenance, "test:tick", 300*time.Millisecond, handler)
		wg.Add(1)
		go func() { defer wg.Done(); _ = w.Run(ctx) }()
	}
	time.Sleep(1600 * time.Millisecond)
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(ran) < 3 {
		t.Fatalf("ticks ran: %v", ran)
	}
	for id, n := range ran {
		if n != 1 {
			t.Errorf("tick %s ran %d times", id, n)
		}
	}
}
