package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// A task's Lifetime survives Asynq cancelling the task (what it does when it cannot extend its
// lease while Redis is unreachable; here: CancelProcessing, which cancels the same way), keeps
// the task's deadline, and ends when the worker stops.
func TestALifetimeOutlivesAsynqsCancellationAndEndsWithTheWorker(t *testing.T) {
	q, err := tasks.OpenQueue(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	type seen struct {
		afterTaskCancel error
		deadline        bool
		ended           bool
	}
	started, report := make(chan struct{}), make(chan seen, 1)
	w := jobs.NewWorker(q, graphtest.Logger(), 5*time.Second)
	w.Handle(tasks.LaneAgents, tasks.TypeRunSession, func(ctx context.Context, _ *asynq.Task) error {
		life, cancel := jobs.Lifetime(ctx)
		defer cancel()
		close(started)
		<-ctx.Done()
		var s seen
		s.afterTaskCancel = life.Err()
		_, s.deadline = life.Deadline()
		select {
		case <-life.Done():
			s.ended = true
		case <-time.After(10 * time.Second):
		}
		report <- s
		return nil
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	task := graphtest.Unique(t, "lifetime")
	if _, err := q.EnqueueRunSession(context.Background(), tasks.RunSession{SessionID: 1, Prompt: "p"}, task); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the task did not start")
	}
	conn, _ := asynq.ParseRedisURI(graphtest.RedisURL(redisDB))
	in := asynq.NewInspector(conn)
	defer in.Close()
	if err := in.CancelProcessing(task); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // the cancellation reaches the task
	stop()
	s := <-report
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s.afterTaskCancel != nil || !s.deadline || !s.ended {
		t.Fatalf("after Asynq cancelled the task: %v (want nil); deadline kept %v; ended with the worker %v", s.afterTaskCancel, s.deadline, s.ended)
	}
}
