package runner

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
)

// HandleExpireElicitations expires the elicitations nobody answered before their expiry: each
// blocked turn is released and its session says what went unanswered.
func (r *Runner) HandleExpireElicitations(ctx context.Context, _ *asynq.Task) error {
	expired, err := r.ops.ExpireElicitations(ctx)
	for _, e := range expired {
		r.log.Warn("elicitation expired unanswered", "request_id", e.RequestID, "session_id", e.SessionID)
	}
	if err != nil {
		return fmt.Errorf("expire elicitations: %w", err)
	}
	return nil
}
