package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// TriggerOptions tune the trigger tasks; zero values take the defaults noted.
type TriggerOptions struct {
	ScheduleEvery time.Duration // the schedule sweep's cadence (1 min)
	// Scope limits the sweep to triggers whose prompt template mentions it, for graphs shared
	// by independent queues (the tests). Empty sweeps every trigger.
	Scope string
	// GitHub is what github_label / github_issue conditions are polled from (nil: not polled);
	// PollEvery is the poll's cadence (1 min).
	GitHub    orchestrator.IssueLister
	PollEvery time.Duration
}

// RegisterTriggers wires the trigger tasks into a worker: fires and session events on the
// triggers lane, the schedule sweep as a periodic slot there, the GitHub poll on pollers.
func RegisterTriggers(w *Worker, ops *orchestrator.Service, o TriggerOptions) {
	if o.ScheduleEvery == 0 {
		o.ScheduleEvery = time.Minute
	}
	w.Handle(tasks.LaneTriggers, tasks.TypeFireTrigger, func(ctx context.Context, t *asynq.Task) error {
		var p tasks.FireTrigger
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("decode %s: %v: %w", t.Type(), err, asynq.SkipRetry)
		}
		_, err := ops.FireCondition(ctx, p)
		return err
	})
	w.Handle(tasks.LaneTriggers, tasks.TypeSessionEvent, func(ctx context.Context, t *asynq.Task) error {
		var p tasks.SessionEvent
		if err := json.Unmarshal(t.Payload(), &p); err != nil {
			return fmt.Errorf("decode %s: %v: %w", t.Type(), err, asynq.SkipRetry)
		}
		return ops.FireSessionEvent(ctx, p)
	})
	w.Every(tasks.LaneTriggers, tasks.TypeScheduleTriggers, o.ScheduleEvery, func(ctx context.Context, _ *asynq.Task) error {
		_, err := ops.SweepSchedules(ctx, orchestrator.SweepScope{Text: o.Scope})
		return err
	})
	if o.GitHub == nil {
		return
	}
	if o.PollEvery == 0 {
		o.PollEvery = time.Minute
	}
	w.Every(tasks.LanePollers, tasks.TypePollGitHub, o.PollEvery, func(ctx context.Context, _ *asynq.Task) error {
		_, err := ops.PollGitHub(ctx, o.GitHub, orchestrator.SweepScope{Text: o.Scope})
		return err
	})
}
