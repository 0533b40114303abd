package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// HandleSweep is the periodic orphan sweep (see orchestrator/sweep.go for the rules): it parks
// running sessions whose run died — first ending the agent process the dead worker left on this
// host — continues every session parked for recovery, queues again deliveries whose job was
// lost, and drains idle sessions' queued messages.
func (r *Runner) HandleSweep(ctx context.Context, _ *asynq.Task) error {
	orphans, err := r.ops.FindOrphans(ctx, r.opt.SweepGrace, r.scope(), r.queue.RunAlive)
	if err != nil {
		return fmt.Errorf("find orphaned sessions: %w", err)
	}
	var errs []error
	parked := 0
	for _, o := range orphans {
		if ctx.Err() != nil { // the worker is stopping: the next sweep takes the rest
			return ctx.Err()
		}
		r.killLeftover(o.Session.Metadata, r.workspaceRoot(o.Session.ID))
		err := r.ops.ParkOrphan(ctx, o)
		switch {
		case err == nil:
			parked++
			r.log.Warn("orphaned session parked for recovery", "session_id", o.Session.ID, "why", o.Why)
		case !errors.Is(err, orchestrator.ErrNotOwner): // taken over since it was found: not an orphan
			errs = append(errs, err)
		}
	}
	rec, err := r.ops.ContinueRecovered(ctx, r.scope())
	if err != nil {
		errs = append(errs, err)
	}
	requeued, err := r.ops.RedispatchPending(ctx, r.opt.SweepGrace, r.scope(), r.queue.RunAlive)
	if err != nil {
		errs = append(errs, err)
	}
	drained, err := r.ops.DrainIdle(ctx, r.opt.SweepGrace, r.scope())
	if err != nil {
		errs = append(errs, err)
	}
	effects, err := r.ops.RedispatchEffects(ctx, r.opt.SweepGrace, r.scope(), r.effectsQueued)
	if err != nil {
		errs = append(errs, err)
	}
	if parked+rec.Continued+rec.Abandoned+requeued+drained+effects > 0 {
		r.log.Info("orphan sweep", "parked", parked, "continued", rec.Continued, "abandoned", rec.Abandoned,
			"dispatches_requeued", requeued, "idle_drained", drained, "effects_requeued", effects)
	}
	return errors.Join(errs...)
}

// effectsQueued reports whether a transition's effects task still waits or runs.
func (r *Runner) effectsQueued(ctx context.Context, batch string) (bool, error) {
	return r.queue.TaskQueued(ctx, tasks.LaneDefault, tasks.SessionEffectsTaskID(batch))
}

// scope is what one sweep looks at: up to 100 sessions per step (the next tick takes the rest),
// narrowed to Options.SweepScope.
func (r *Runner) scope() orchestrator.SweepScope {
	return orchestrator.SweepScope{Text: r.opt.SweepScope, Limit: 100}
}
