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

// ran records when each task type last ran.
type ran struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func (r *ran) handler(ctx context.Context, t *asynq.Task) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[t.Type()] = time.Now()
	return nil
}

func (r *ran) at(typ string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[typ]
}

func (r *ran) wait(t *testing.T, typ string, within time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if at := r.at(typ); !at.IsZero() {
			return at
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not run within %s", typ, within)
	return time.Time{}
}

// Queue recovery mode on a real worker: it halts the non-agent lanes (their tasks wait) while
// agents keep running; exiting resumes them; and a halt nobody exits is lifted by the worker's
// periodic check once its time has run out, whoever set it.
func TestQueueRecoveryModeHaltsLanesResumesThemAndLiftsItselfByTTL(t *testing.T) {
	r := graphtest.StartRedis(t, graphtest.Unique(t, "pw"))
	q, err := tasks.OpenQueue(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	conn, _ := asynq.ParseRedisURI(r.URL)
	client := asynq.NewClient(conn)
	defer client.Close()
	enqueue := func(lane, typ string) {
		t.Helper()
		if _, err := client.Enqueue(asynq.NewTask(typ, nil, asynq.Queue(lane))); err != nil {
			t.Fatal(err)
		}
	}
	seen := &ran{last: map[string]time.Time{}}
	w := jobs.NewWorker(q, graphtest.Logger(), time.Second)
	w.Handle(tasks.LaneDefault, "demo:default", seen.handler)
	w.Handle(tasks.LaneTriggers, "demo:trigger", seen.handler)
	w.Handle(tasks.LaneAgents, "demo:agent", seen.handler)
	jobs.RegisterQueueRecoveryCheck(w, q, 200*time.Millisecond)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { stop(); <-done }()

	// Halted, then exited by hand.
	if _, err := q.EnterRecovery(ctx, time.Now(), time.Hour, "test", "tester"); err != nil {
		t.Fatal(err)
	}
	enqueue(tasks.LaneDefault, "demo:default")
	enqueue(tasks.LaneAgents, "demo:agent")
	seen.wait(t, "demo:agent", 5*time.Second)
	time.Sleep(time.Second)
	if !seen.at("demo:default").IsZero() {
		t.Fatal("a task on a halted lane ran")
	}
	if _, wasOn, err := q.ExitRecovery(ctx, time.Now()); err != nil || !wasOn {
		t.Fatalf("exit: was on %v, %v", wasOn, err)
	}
	seen.wait(t, "demo:default", 5*time.Second)

	// Halted for a moment, and never exited: the periodic check lifts it.
	ttl := 1500 * time.Millisecond
	entered := time.Now()
	if _, err := q.EnterRecovery(ctx, entered, ttl, "short", "a worker that is gone"); err != nil {
		t.Fatal(err)
	}
	enqueue(tasks.LaneTriggers, "demo:trigger")
	ranAt := seen.wait(t, "demo:trigger", 10*time.Second)
	if ranAt.Before(entered.Add(ttl)) {
		t.Fatalf("the halted lane ran %s after entry, before its %s window ended", ranAt.Sub(entered), ttl)
	}
	st, err := q.Recovery(ctx, time.Now())
	if err != nil || st.Active() || len(st.Paused) != 0 {
		t.Fatalf("after the lift: %+v, %v; want off with nothing paused", st, err)
	}
}
