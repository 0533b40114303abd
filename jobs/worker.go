// Package jobs is the worker: one Asynq server per lane with its own concurrency, the periodic
// scheduler, and the lifetime of the handlers it runs. The task types and the queue client it
// serves are package jobs/tasks, below the orchestrator.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
)

// Worker serves every lane that has handlers, one Asynq server per lane with its own
// concurrency, and runs the periodic scheduler.
type Worker struct {
	queue    *tasks.Queue
	log      *slog.Logger
	muxes    map[string]*asynq.ServeMux
	grace    time.Duration
	periodic []tasks.Periodic
	delays   map[string]func(n int) time.Duration // retry back-off by task type; Asynq's default otherwise
	// running counts handlers still executing: Asynq's Shutdown stops waiting for a handler
	// whose context was cancelled, but a hand-back still has to commit before the process exits.
	// A counter rather than a WaitGroup: a task dequeued just before the stop may start while
	// the shutdown is already waiting.
	running atomic.Int64
	slots   *metrics.Lanes // nil counts nothing
}

// NewWorker prepares a worker on the queue's Redis. grace bounds how long a shutdown waits for
// handlers to hand their work back.
func NewWorker(q *tasks.Queue, log *slog.Logger, grace time.Duration) *Worker {
	return &Worker{queue: q, log: log, muxes: map[string]*asynq.ServeMux{}, grace: grace, delays: map[string]func(int) time.Duration{}}
}

// CountSlots makes the worker export each lane's configured concurrency and the tasks it runs.
func (w *Worker) CountSlots(l *metrics.Lanes) { w.slots = l }

// pollInterval is how often an idle lane asks Redis for work.
const pollInterval = 200 * time.Millisecond

// Handle registers h for task type typ on a lane.
func (w *Worker) Handle(lane, typ string, h asynq.HandlerFunc) {
	mux, ok := w.muxes[lane]
	if !ok {
		mux = asynq.NewServeMux()
		w.muxes[lane] = mux
	}
	mux.HandleFunc(typ, func(ctx context.Context, t *asynq.Task) error {
		w.running.Add(1)
		defer w.running.Add(-1)
		defer w.slots.Begin(lane)()
		return h(ctx, t)
	})
}

// Every registers h for typ on a lane and schedules it every period. Each worker runs the
// scheduler; deterministic slot ids make sure a tick runs once however many workers there are.
func (w *Worker) Every(lane, typ string, every time.Duration, h asynq.HandlerFunc) {
	w.Handle(lane, typ, h)
	w.periodic = append(w.periodic, tasks.Periodic{Type: typ, Lane: lane, Every: every})
}

// RetryDelay sets how long a failed task of type typ waits before its n-th retry; other types
// keep Asynq's exponential default.
func (w *Worker) RetryDelay(typ string, delay func(n int) time.Duration) { w.delays[typ] = delay }

func (w *Worker) retryDelay(n int, err error, t *asynq.Task) time.Duration {
	if delay, ok := w.delays[t.Type()]; ok {
		return delay(n)
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}

// Lanes returns the lanes this worker serves, sorted.
func (w *Worker) Lanes() []string { return slices.Sorted(maps.Keys(w.muxes)) }

// Run serves until ctx is cancelled, then shuts down in an order that loses no work: every lane
// stops taking tasks, the handlers' context is cancelled (an agent turn terminates its process
// and hands its session back for recovery), and the worker waits up to the grace period for
// the handlers to return.
func (w *Worker) Run(ctx context.Context) error {
	base, cancelHandlers := context.WithCancel(context.Background())
	defer cancelHandlers()
	servers, err := w.start(base)
	if err != nil {
		return err
	}
	sched, stopSched := context.WithCancel(ctx)
	defer stopSched()
	for _, p := range w.periodic {
		go schedule(sched, w.queue, p, w.log)
	}
	for _, lane := range tasks.Lanes() {
		if _, ok := w.muxes[lane]; !ok {
			w.log.Info("lane idle: no handlers in this build; its tasks stay queued", "lane", lane)
		}
	}
	<-ctx.Done()
	w.log.Info("worker stopping: handing running work back")
	for _, s := range servers {
		s.Stop()
	}
	cancelHandlers()
	for _, s := range servers {
		s.Shutdown()
	}
	w.wait()
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// start runs one server per lane with handlers; their handlers' contexts derive from base.
func (w *Worker) start(base context.Context) ([]*asynq.Server, error) {
	var servers []*asynq.Server
	for _, lane := range w.Lanes() {
		srv := asynq.NewServer(w.queue.Conn(), asynq.Config{
			Concurrency:     tasks.LaneConcurrency[lane],
			Queues:          map[string]int{lane: 1},
			ShutdownTimeout: w.grace,
			// Asynq polls an empty queue every 0.5–1.5 s by default; a human waiting for an
			// agent to start notices that, and a poll is one cheap Redis call.
			TaskCheckInterval: pollInterval,
			// A scheduled task (a drain, a retry after trouble, a clone cleanup) is moved to its
			// queue within a second of being due rather than Asynq's default five.
			DelayedTaskCheckInterval: time.Second,
			RetryDelayFunc:           w.retryDelay,
			BaseContext:              func() context.Context { return context.WithValue(base, workerKey{}, base) },
			Logger:                   asynqLogger{w.log.With("lane", lane)},
		})
		if err := srv.Start(w.muxes[lane]); err != nil {
			for _, s := range servers {
				s.Shutdown()
			}
			return nil, fmt.Errorf("start lane %s: %w", lane, err)
		}
		servers = append(servers, srv)
		w.slots.Serving(lane, tasks.LaneConcurrency[lane])
		w.log.Info("lane serving", "lane", lane, "concurrency", tasks.LaneConcurrency[lane])
	}
	return servers, nil
}

// workerKey carries the worker's own context (cancelled when the worker stops) into every
// handler's context.
type workerKey struct{}

// Lifetime is the context a long task runs under: ctx's values and deadline, ended when the
// worker stops — but not when Asynq gives up the task because it could not extend its lease
// (Redis unreachable for about 30 seconds). Ownership of an agent turn lives in the graph
// (running_job_id), so a turn that outlives a Redis outage is still the only one running.
func Lifetime(ctx context.Context) (context.Context, context.CancelFunc) {
	worker, ok := ctx.Value(workerKey{}).(context.Context)
	if !ok {
		return context.WithCancel(ctx) // not under a Worker: ctx is all there is
	}
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if deadline, ok := ctx.Deadline(); ok {
		var cancelDeadline context.CancelFunc
		out, cancelDeadline = context.WithDeadline(out, deadline)
		prev := cancel
		cancel = func() { cancelDeadline(); prev() }
	}
	stop := context.AfterFunc(worker, cancel)
	return out, func() { stop(); cancel() }
}

func (w *Worker) wait() {
	deadline := time.Now().Add(w.grace)
	for w.running.Load() > 0 {
		if time.Now().After(deadline) {
			w.log.Warn("worker stopped with handlers still running after the grace period", "grace", w.grace, "running", w.running.Load())
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// asynqLogger adapts slog to Asynq's logger interface.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error(fmt.Sprint(args...)) }

// schedule enqueues p's current tick now (a worker that just started need not wait a whole
// period for its first sweep), then one per slot boundary until ctx ends.
func schedule(ctx context.Context, q *tasks.Queue, p tasks.Periodic, log *slog.Logger) {
	for {
		if _, err := q.EnqueueSlot(ctx, p, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("periodic job not enqueued", "type", p.Type, "err", err)
		}
		next := time.Now().Truncate(p.Every).Add(p.Every)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
	}
}
