package tasks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeLedgerBackfill sweeps every transcript on disk into the token ledger, one slice per task
// (orchestrator.BackfillSlice); the periodic tick resumes a sweep whose worker stopped.
const TypeLedgerBackfill = "ledger:backfill"

// LedgerBackfillEvery is the resuming tick's cadence; a slice runs for well under it.
const LedgerBackfillEvery = 2 * time.Minute

// EnqueueLedgerBackfill queues the next slice of sweep run from cursor at once. The id names
// the run and cursor, so a slice asked for twice runs once.
func (q *Queue) EnqueueLedgerBackfill(ctx context.Context, run, cursor int64) error {
	id := "ledger-backfill-" + strconv.FormatInt(run, 10) + "-" + strconv.FormatInt(cursor, 10)
	task := asynq.NewTask(TypeLedgerBackfill, nil, asynq.Queue(LaneMaintenance), asynq.TaskID(id),
		asynq.MaxRetry(0), asynq.Timeout(LedgerBackfillEvery), asynq.Retention(time.Hour))
	if _, err := q.client.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("queue the ledger backfill: %w", err)
	}
	return nil
}
