package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/hibiken/asynq"
)

// Worker serves every lane that has handlers, one Asynq server per lane with its own concurrency.
type Worker struct {
	conn  asynq.RedisConnOpt
	log   *slog.Logger
	muxes map[string]*asynq.ServeMux
	grace time.Duration
}

// NewWorker prepares a worker on the queue's Redis.
func NewWorker(q *Queue, log *slog.Logger, grace time.Duration) *Worker {
	return &Worker{conn: q.conn, log: log, muxes: map[string]*asynq.ServeMux{}, grace: grace}
}

// Handle registers h for task type typ on a lane.
func (w *Worker) Handle(lane, typ string, h asynq.HandlerFunc) {
	mux, ok := w.muxes[lane]
	if !ok {
		mux = asynq.NewServeMux()
		w.muxes[lane] = mux
	}
	mux.HandleFunc(typ, h)
}

// Lanes returns the lanes this worker serves, sorted.
func (w *Worker) Lanes() []string {
	lanes := make([]string, 0, len(w.muxes))
	for l := range w.muxes {
		lanes = append(lanes, l)
	}
	sort.Strings(lanes)
	return lanes
}

// Run serves until ctx is cancelled, then shuts every lane down, letting in-flight tasks finish
// within the grace period (unfinished ones go back to their queue).
func (w *Worker) Run(ctx context.Context) error {
	var servers []*asynq.Server
	for _, lane := range w.Lanes() {
		srv := asynq.NewServer(w.conn, asynq.Config{
			Concurrency:     LaneConcurrency[lane],
			Queues:          map[string]int{lane: 1},
			ShutdownTimeout: w.grace,
			Logger:          asynqLogger{w.log.With("lane", lane)},
		})
		if err := srv.Start(w.muxes[lane]); err != nil {
			for _, s := range servers {
				s.Shutdown()
			}
			return fmt.Errorf("start lane %s: %w", lane, err)
		}
		servers = append(servers, srv)
		w.log.Info("lane serving", "lane", lane, "concurrency", LaneConcurrency[lane])
	}
	for lane := range LaneConcurrency {
		if _, ok := w.muxes[lane]; !ok {
			w.log.Info("lane idle: no handlers in this build; its tasks stay queued", "lane", lane)
		}
	}
	<-ctx.Done()
	for _, s := range servers {
		s.Shutdown()
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return ctx.Err()
}

// asynqLogger adapts slog to Asynq's logger interface.
type asynqLogger struct{ l *slog.Logger }

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a asynqLogger) Fatal(args ...any) { a.l.Error(fmt.Sprint(args...)) }
