package jobs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// redisDB is this package's own Redis database.
const redisDB = 11

func openQueue(t *testing.T) *tasks.Queue {
	t.Helper()
	graphtest.FlushRedis(t, redisDB)
	q, err := tasks.OpenQueue(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
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
		w.Every(tasks.LaneMaintenance, "test:tick", 300*time.Millisecond, handler)
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
