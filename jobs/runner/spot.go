package runner

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// HandleResumeSpot is the periodic spot scheduler and ceiling sweep: it parks running spot
// sessions of pools over the spot gate's ceiling or targets, and resumes parked sessions,
// longest parked first, into the agents lane's free slots of pools with room.
func (r *Runner) HandleResumeSpot(ctx context.Context, _ *asynq.Task) error {
	free, err := r.queue.FreeSlots(tasks.LaneAgents)
	if err != nil {
		return fmt.Errorf("spot scheduler: %w", err)
	}
	got, err := r.ops.SweepSpot(ctx, free, r.scope())
	if got.Resumed > 0 || got.Parked > 0 {
		r.log.Info("spot scheduler", "resumed", got.Resumed, "parked", got.Parked, "free_slots", free)
	}
	for runtime, why := range got.Held {
		r.log.Debug("spot work waits", "runtime", runtime, "why", why)
	}
	return err
}
