package runner

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
)

// HandleBacklog is the unattended backlog job: it starts the work backlog's top items as spot
// sessions, with no human in the loop, while fewer of its sessions than its quota are live.
func (r *Runner) HandleBacklog(ctx context.Context, _ *asynq.Task) error {
	started, err := r.ops.RunBacklogJob(ctx)
	for _, st := range started {
		if st.Err == nil {
			r.log.Info("backlog item started", "item", st.Item.ID, "session_id", st.Session.ID, "issue_url", st.Item.IssueURL)
		}
	}
	if err != nil {
		return fmt.Errorf("backlog job: %w", err)
	}
	return nil
}
