package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// ChainCheckEvery is the cadence of the human-message chain check.
const ChainCheckEvery = 15 * time.Minute

// RegisterChainCheck schedules the periodic check of every human-message hash chain: it sets
// the breaks gauge to the number of sessions whose chain no longer recomputes and logs each
// first broken link (ids and the reason, never content).
func RegisterChainCheck(w *Worker, ops *orchestrator.Service, m *metrics.Provenance, log *slog.Logger) {
	w.Every(tasks.LaneMaintenance, tasks.TypeVerifyChains, ChainCheckEvery, func(ctx context.Context, _ *asynq.Task) error {
		return CheckChains(ctx, ops, m, log)
	})
}

// CheckChains runs one check of every chain.
func CheckChains(ctx context.Context, ops *orchestrator.Service, m *metrics.Provenance, log *slog.Logger) error {
	breaks, err := ops.VerifyAllHumanMessages(ctx)
	if err != nil {
		m.ChainChecks.WithLabelValues("error").Inc()
		return err
	}
	m.ChainBreaks.Set(float64(len(breaks)))
	if len(breaks) == 0 {
		m.ChainChecks.WithLabelValues("intact").Inc()
		return nil
	}
	m.ChainChecks.WithLabelValues("broken").Inc()
	for _, b := range breaks {
		log.Error("human-message chain broken", "session_id", b.SessionID, "record_id", b.RecordID, "link", b.Seq, "reason", b.Reason)
	}
	return nil
}
