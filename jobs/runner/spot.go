package runner

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// HandleResumeSpot is the periodic spot scheduler: it resumes sessions parked by
// pause_into_spot_queue, longest parked first, into the agents lane's free slots. Spot gating
// is off (no spot policy exists yet), so only the free slots bound it.
func (r *Runner) HandleResumeSpot(ctx context.Context, _ *asynq.Task) error {
	free, err := r.queue.FreeSlots(tasks.LaneAgents)
	if err != nil {
		return fmt.Errorf("spot scheduler: %w", err)
	}
	got, err := r.ops.ResumeSpotParked(ctx, orchestrator.SpotGateOff, free, r.scope())
	if got.Resumed > 0 {
		r.log.Info("spot scheduler resumed parked sessions", "resumed", got.Resumed, "free_slots", free)
	}
	return err
}
