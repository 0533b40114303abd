package jobs

import (
	"context"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// RecoveryCheckEvery is how often a worker looks for a queue recovery halt whose time ran out.
const RecoveryCheckEvery = time.Minute

// RegisterQueueRecoveryCheck schedules the check that lifts an expired queue recovery halt,
// every period on the agents lane: the one lane the halt leaves running, so the halt is lifted
// by whichever worker is up, not only by the one whose caller set it.
func RegisterQueueRecoveryCheck(w *Worker, q *tasks.Queue, every time.Duration) {
	w.Every(tasks.LaneAgents, tasks.TypeQueueRecoveryCheck, every, func(ctx context.Context, _ *asynq.Task) error {
		lifted, err := q.LiftExpiredRecovery(ctx, time.Now())
		if lifted {
			w.log.Warn("queue recovery mode expired: its lanes run again", "lanes", tasks.HaltedLanes())
		}
		return err
	})
}
