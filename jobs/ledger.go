package jobs

import (
	"context"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// RegisterLedgerBackfill runs the sweep of every transcript into the token ledger: a slice per
// task, each queueing the next, and a periodic tick that resumes a sweep whose worker stopped
// mid-slice (its lease lapses).
func RegisterLedgerBackfill(w *Worker, ops *orchestrator.Service) {
	w.Every(tasks.LaneMaintenance, tasks.TypeLedgerBackfill, tasks.LedgerBackfillEvery, func(ctx context.Context, _ *asynq.Task) error {
		_, _, err := ops.BackfillSlice(ctx, orchestrator.BackfillSliceBudget)
		return err
	})
}
