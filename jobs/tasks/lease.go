package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/metrics"
)

// A run lease is the session runner's own liveness signal: a Redis key per agent task, held
// with a short TTL and refreshed while the runner works. Asynq's lease on an active task is 30
// seconds and its view of dead workers lags behind it; the runner's lease lets the orphan sweep
// tell a worker that died from one that is busy within seconds.
const runLeasePrefix = "zimmer:run-lease:"

// HoldRunLease takes or refreshes the lease of a running agent task for ttl.
func (q *Queue) HoldRunLease(ctx context.Context, taskID string, ttl time.Duration) error {
	if err := q.redis.Set(ctx, runLeasePrefix+taskID, time.Now().UTC().Format(time.RFC3339), ttl).Err(); err != nil {
		return fmt.Errorf("hold run lease %s: %w", taskID, err)
	}
	return nil
}

// ReleaseRunLease drops the lease when the run ends.
func (q *Queue) ReleaseRunLease(ctx context.Context, taskID string) error {
	if err := q.redis.Del(ctx, runLeasePrefix+taskID).Err(); err != nil {
		return fmt.Errorf("release run lease %s: %w", taskID, err)
	}
	return nil
}

// activeRecheck is how long RunAlive waits before trusting that an active task has no lease:
// a runner takes it as its first step, so only a task Asynq handed over an instant ago lacks it.
const activeRecheck = 500 * time.Millisecond

// RunAlive reports whether an agent task is still going to run or still running: waiting in
// the agents lane (pending, scheduled, retry), or held by a live runner's lease. An active task
// with no lease belongs to a worker that died.
func (q *Queue) RunAlive(ctx context.Context, taskID string) (bool, error) {
	held, err := q.leaseHeld(ctx, taskID)
	if err != nil || held {
		return held, err
	}
	info, err := q.taskInfo(LaneAgents, taskID)
	if info == nil {
		return false, err
	}
	switch info.State {
	case asynq.TaskStatePending, asynq.TaskStateScheduled, asynq.TaskStateRetry, asynq.TaskStateAggregating:
		return true, nil
	case asynq.TaskStateActive:
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(activeRecheck):
		}
		return q.leaseHeld(ctx, taskID)
	}
	return false, nil
}

func (q *Queue) leaseHeld(ctx context.Context, taskID string) (bool, error) {
	n, err := q.redis.Exists(ctx, runLeasePrefix+taskID).Result()
	if err != nil {
		return false, fmt.Errorf("read run lease %s: %w", taskID, err)
	}
	return n > 0, nil
}

// LaneDepths reads every lane's task counts and latency for the metrics scrape.
func (q *Queue) LaneDepths() ([]metrics.LaneDepth, error) {
	var out []metrics.LaneDepth
	var errs []error
	for _, lane := range Lanes() {
		info, err := q.laneInfo(lane)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if info == nil {
			out = append(out, metrics.LaneDepth{Lane: lane, States: map[string]int{"pending": 0, "active": 0, "scheduled": 0, "retry": 0, "archived": 0}})
			continue
		}
		out = append(out, metrics.LaneDepth{Lane: lane, Latency: info.Latency, Paused: info.Paused, States: map[string]int{
			"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled, "retry": info.Retry, "archived": info.Archived}})
	}
	return out, errors.Join(errs...)
}
