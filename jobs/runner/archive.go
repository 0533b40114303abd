package runner

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
)

// HandleTranscriptArchive rebuilds the transcript archive from this worker's data directory.
func (r *Runner) HandleTranscriptArchive(ctx context.Context, _ *asynq.Task) error {
	st, err := r.ops.BuildTranscriptArchive(ctx, 0)
	if err != nil {
		return fmt.Errorf("transcript archive: %w", err)
	}
	r.log.Info("transcript archive built", "sessions", st.SessionCount, "skipped", st.Skipped, "bytes", st.Size)
	return nil
}
