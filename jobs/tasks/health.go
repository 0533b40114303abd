package tasks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hibiken/asynq"
)

// LaneHealth is one lane as the health report sees it: ready work and its head-of-line age, what
// the workers hold and since when, and how many workers serve it.
type LaneHealth struct {
	Lane                       string
	Pending, Scheduled, Retry  int // ready, due later, waiting to retry
	Active, Archived           int
	Paused                     bool
	HeadAge                    time.Duration // how long the oldest ready task has waited
	HeadType                   string        // that task's type ("" when nothing is ready)
	PendingByType              map[string]int
	TypesCounted               int // ready tasks PendingByType covers (fewer than Pending on a long backlog)
	Concurrency                int // tasks one worker runs at a time on this lane
	Servers                    int // live worker servers serving the lane
	InFlight                   int // tasks those servers are executing
	OldestStart, YoungestStart time.Time
}

// maxTypeScan bounds how many ready tasks of one lane the report reads to count them by type.
const maxTypeScan = 2000

// Health reads every lane: Asynq's counts, the ready tasks by type (up to maxTypeScan a lane) and
// the executions the live worker servers report in their heartbeats.
func (q *Queue) Health() ([]LaneHealth, error) {
	servers, err := q.inspector.Servers()
	if err != nil {
		return nil, fmt.Errorf("list worker servers: %w", err)
	}
	var out []LaneHealth
	for _, lane := range Lanes() {
		h := LaneHealth{Lane: lane, Concurrency: LaneConcurrency[lane], PendingByType: map[string]int{}}
		info, err := q.laneInfo(lane)
		switch {
		case err != nil:
			return nil, err
		case info != nil:
			h.Pending, h.Scheduled, h.Retry, h.Active, h.Archived = info.Pending, info.Scheduled, info.Retry, info.Active, info.Archived
			h.Paused, h.HeadAge = info.Paused, info.Latency
		}
		if h.Pending > 0 {
			if err := q.countReady(&h); err != nil {
				return nil, err
			}
		}
		for _, s := range servers {
			if _, ok := s.Queues[lane]; !ok {
				continue
			}
			h.Servers++
			for _, w := range s.ActiveWorkers {
				if w.Queue != lane {
					continue
				}
				h.InFlight++
				if h.OldestStart.IsZero() || w.Started.Before(h.OldestStart) {
					h.OldestStart = w.Started
				}
				if w.Started.After(h.YoungestStart) {
					h.YoungestStart = w.Started
				}
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// countReady counts a lane's ready tasks by type, oldest first, and names the head's type.
func (q *Queue) countReady(h *LaneHealth) error {
	return q.eachQueued(h.Lane, asynq.TaskStatePending, maxTypeScan, func(t *asynq.TaskInfo) {
		if h.TypesCounted == 0 {
			h.HeadType = t.Type
		}
		h.PendingByType[t.Type]++
		h.TypesCounted++
	})
}

// laneInfo is Asynq's view of a lane; nil, without an error, for a lane no task has reached yet
// (GetQueueInfo's own not-found error does not unwrap to asynq.ErrQueueNotFound).
func (q *Queue) laneInfo(lane string) (*asynq.QueueInfo, error) {
	known, err := q.inspector.Queues()
	if err != nil {
		return nil, fmt.Errorf("list lanes: %w", err)
	}
	if !slices.Contains(known, lane) {
		return nil, nil
	}
	info, err := q.inspector.GetQueueInfo(lane)
	if err != nil {
		return nil, fmt.Errorf("inspect lane %s: %w", lane, err)
	}
	return info, nil
}

// listPage is how many tasks one inspector call lists.
const listPage = 500

// eachQueued visits up to limit tasks of a lane in one not-started state, in the lane's order.
func (q *Queue) eachQueued(lane string, state asynq.TaskState, limit int, fn func(*asynq.TaskInfo)) error {
	list := map[asynq.TaskState]func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
		asynq.TaskStatePending: q.inspector.ListPendingTasks, asynq.TaskStateScheduled: q.inspector.ListScheduledTasks,
		asynq.TaskStateRetry: q.inspector.ListRetryTasks,
	}[state]
	seen := 0
	for page := 1; seen < limit; page++ {
		batch, err := list(lane, asynq.PageSize(listPage), asynq.Page(page))
		if errors.Is(err, asynq.ErrQueueNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list %s tasks of %s: %w", state, lane, err)
		}
		for _, t := range batch {
			if seen == limit {
				return nil
			}
			fn(t)
			seen++
		}
		if len(batch) < listPage {
			return nil
		}
	}
	return nil
}

// Latency times one Redis round trip.
func (q *Queue) Latency(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	err := q.Ping(ctx)
	return time.Since(start), err
}

// LongestWaiting is the lane whose oldest ready task has waited longest ("" when nothing waits).
func LongestWaiting(lanes []LaneHealth) (LaneHealth, bool) {
	ready := slices.DeleteFunc(slices.Clone(lanes), func(l LaneHealth) bool { return l.Pending == 0 })
	if len(ready) == 0 {
		return LaneHealth{}, false
	}
	return slices.MaxFunc(ready, func(a, b LaneHealth) int { return cmp.Compare(a.HeadAge, b.HeadAge) }), true
}
