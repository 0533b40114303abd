package tasks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hibiken/asynq"
)

// Queued-job maintenance: count, discard or reschedule tasks that have not started (ready, due
// later, or waiting to retry) by task type and/or lane. The agents lane is never touched (a task
// there is a live session's turn, not backlog), nor the recovery check (the halt's way out).

// MaxJobsPerCall bounds the tasks one discard or reschedule acts on.
const MaxJobsPerCall = 2000

// maxScanPerState bounds how many tasks of one lane and state a type-scoped match reads.
const maxScanPerState = 20000

// JobsRefused is a maintenance call refused before anything changed: Kind is one of the
// sentinels below, the text the sentence a caller reads.
type JobsRefused struct {
	Kind error
	text string
}

func (e *JobsRefused) Error() string { return e.text }

// Unwrap makes errors.Is(err, Kind) true.
func (e *JobsRefused) Unwrap() error { return e.Kind }

func refuse(kind error, format string, a ...any) error {
	return &JobsRefused{Kind: kind, text: fmt.Sprintf(format, a...)}
}

// Kinds of refusal.
var (
	ErrJobsUnscoped  = errors.New("unscoped")
	ErrJobsProtected = errors.New("protected")
	ErrJobsMismatch  = errors.New("count mismatch")
	ErrJobsOverCap   = errors.New("over the cap")
)

// JobScope selects queued tasks by type and/or lane.
type JobScope struct {
	Type string `json:"job_class"`
	Lane string `json:"queue_name"`
}

// JobMatch is what a scope selects now.
type JobMatch struct {
	Scope   JobScope       `json:"scope"`
	Matched int            `json:"matched"`
	ByType  map[string]int `json:"by_job_class"`
	ByLane  map[string]int `json:"by_queue"`
	OverCap bool           `json:"over_cap"`
	// AtLeast: a lane held more tasks than a type-scoped count reads, so Matched is a floor.
	AtLeast    bool `json:"matched_is_lower_bound"`
	MaxPerCall int  `json:"max_per_call"`
	tasks      []*asynq.TaskInfo
}

// Breakdown is the match by type, "type=n" sorted by type, for refusals.
func (m JobMatch) Breakdown() string {
	var parts []string
	for t, n := range m.ByType {
		parts = append(parts, fmt.Sprintf("%s=%d", t, n))
	}
	slices.Sort(parts)
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// JobSkip is a matched task that changed state before it could be acted on.
type JobSkip struct {
	ID     string `json:"id"`
	Type   string `json:"job_class"`
	Reason string `json:"reason"`
}

// JobResult is what a discard or reschedule did.
type JobResult struct {
	JobMatch
	Affected int       `json:"affected"`
	Skipped  []JobSkip `json:"skipped"`
}

// checkScope refuses an empty scope, the agents lane, an unknown lane and the protected types.
func checkScope(sc JobScope) error {
	switch {
	case sc.Type == "" && sc.Lane == "":
		return refuse(ErrJobsUnscoped, "name a job_class and/or a queue_name; an unscoped call would act on every queue")
	case sc.Lane == LaneAgents || sc.Type == TypeRunSession:
		return refuse(ErrJobsProtected, "the agents queue is refused: a task there is a live session's turn, not backlog (pause or archive the session instead)")
	case sc.Type == TypeQueueRecoveryCheck:
		return refuse(ErrJobsProtected, "%s is refused: it is what lifts queue recovery mode", TypeQueueRecoveryCheck)
	case sc.Lane != "" && !slices.Contains(Lanes(), sc.Lane):
		return refuse(ErrJobsUnscoped, "unknown queue_name %q (queues: %s)", sc.Lane, strings.Join(HaltedLanes(), ", "))
	}
	return nil
}

// MatchQueued counts the tasks a scope selects, refusing a scope no call may act on.
func (q *Queue) MatchQueued(sc JobScope) (JobMatch, error) {
	m := JobMatch{Scope: sc, ByType: map[string]int{}, ByLane: map[string]int{}, MaxPerCall: MaxJobsPerCall}
	if err := checkScope(sc); err != nil {
		return m, err
	}
	lanes := HaltedLanes()
	if sc.Lane != "" {
		lanes = []string{sc.Lane}
	}
	for _, lane := range lanes {
		for _, state := range []asynq.TaskState{asynq.TaskStatePending, asynq.TaskStateScheduled, asynq.TaskStateRetry} {
			seen := 0
			err := q.eachQueued(lane, state, maxScanPerState, func(t *asynq.TaskInfo) {
				seen++
				if sc.Type != "" && t.Type != sc.Type {
					return
				}
				m.Matched++
				m.ByType[t.Type]++
				m.ByLane[lane]++
				if len(m.tasks) <= MaxJobsPerCall {
					m.tasks = append(m.tasks, t)
				}
			})
			if err != nil {
				return m, err
			}
			m.AtLeast = m.AtLeast || seen == maxScanPerState
		}
	}
	m.OverCap = m.Matched > MaxJobsPerCall
	return m, nil
}

// DiscardQueued deletes the tasks a scope selects, when expected is exactly how many it selects
// now and within the cap; otherwise it refuses and deletes nothing. Deleted work never runs.
func (q *Queue) DiscardQueued(sc JobScope, expected int) (JobResult, error) {
	return q.actOnQueued(sc, expected, func(t *asynq.TaskInfo) error { return q.inspector.DeleteTask(t.Queue, t.ID) })
}

// RescheduleQueued moves the tasks a scope selects to run at at (same checks as DiscardQueued):
// each is taken out and queued again under its own id, type, payload and options.
func (q *Queue) RescheduleQueued(ctx context.Context, sc JobScope, expected int, at time.Time) (JobResult, error) {
	return q.actOnQueued(sc, expected, func(t *asynq.TaskInfo) error {
		if err := q.inspector.DeleteTask(t.Queue, t.ID); err != nil {
			return err
		}
		opts := []asynq.Option{asynq.Queue(t.Queue), asynq.TaskID(t.ID), asynq.MaxRetry(t.MaxRetry), asynq.ProcessAt(at)}
		if t.Timeout > 0 {
			opts = append(opts, asynq.Timeout(t.Timeout))
		}
		if !t.Deadline.IsZero() {
			opts = append(opts, asynq.Deadline(t.Deadline))
		}
		if t.Retention > 0 {
			opts = append(opts, asynq.Retention(t.Retention))
		}
		if _, err := q.client.EnqueueContext(ctx, asynq.NewTask(t.Type, t.Payload, opts...)); err != nil {
			return fmt.Errorf("taken out but not queued again (lost): %w", err)
		}
		return nil
	})
}

func (q *Queue) actOnQueued(sc JobScope, expected int, act func(*asynq.TaskInfo) error) (JobResult, error) {
	m, err := q.MatchQueued(sc)
	r := JobResult{JobMatch: m, Skipped: []JobSkip{}}
	switch {
	case err != nil:
		return r, err
	case m.Matched != expected || m.AtLeast:
		return r, refuse(ErrJobsMismatch, "expected_count is %d but %d job(s) match now (%s); nothing was changed — preview again and pass the count it reports",
			expected, m.Matched, m.Breakdown())
	case m.OverCap:
		return r, refuse(ErrJobsOverCap, "%d job(s) match, more than the %d one call may act on; narrow the scope", m.Matched, MaxJobsPerCall)
	}
	for _, t := range m.tasks {
		if err := act(t); err != nil {
			r.Skipped = append(r.Skipped, JobSkip{ID: t.ID, Type: t.Type, Reason: err.Error()})
			continue
		}
		r.Affected++
	}
	return r, nil
}
