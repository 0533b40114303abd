package orchestrator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// Acknowledged means delivered. Every hand-off of a prompt to an agent job (a start, a
// follow-up, a queued message, a recovery) writes a pending dispatch into the session in the
// same transaction that makes it; the claim of the job it names clears it. Queueing the job
// happens after the commit and may fail (Redis down, the caller gone): the delivery stands
// anyway, and the sweep queues again any pending dispatch whose job is not alive (rule 4).

// afterCommitTimeout bounds one side effect that follows a commit.
const afterCommitTimeout = 10 * time.Second

// afterCommit is the context of the side effects that follow a commit (queueing the job,
// scheduling a drain, recording an edge): what was committed is acknowledged, so a caller that
// hangs up must not cut them short. It keeps ctx's values, not its cancellation, and has a
// deadline of its own.
func afterCommit(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), afterCommitTimeout)
}

// pendingDispatch is a hand-off whose job has not been claimed yet.
type pendingDispatch struct {
	TaskID    string // "" for a start written before its session had an id: see taskID
	Prompt    string
	Reason    string // the RunSession reason: start, follow_up
	Attempts  int    // how often the sweep queued it again
	CreatedAt string
	DueAt     string // RFC 3339: a job scheduled for later (a retry after trouble); "" is now
}

func (s *Service) newPending(taskID, prompt, reason string) map[string]any {
	return pendingDispatch{TaskID: taskID, Prompt: prompt, Reason: reason,
		CreatedAt: s.now().UTC().Format(time.RFC3339Nano)}.bag()
}

func (p pendingDispatch) bag() map[string]any {
	m := map[string]any{"task_id": p.TaskID, "prompt": p.Prompt, "reason": p.Reason, "attempts": p.Attempts, "created_at": p.CreatedAt}
	if p.DueAt != "" {
		m["due_at"] = p.DueAt
	}
	return m
}

// pendingOf reads the session's pending dispatch.
func pendingOf(u *session.Session) (pendingDispatch, bool) {
	m, ok := u.Metadata[session.MetaPendingDispatch].(map[string]any)
	if !ok {
		return pendingDispatch{}, false
	}
	str := func(k string) string { v, _ := m[k].(string); return v }
	return pendingDispatch{TaskID: str("task_id"), Prompt: str("prompt"), Reason: str("reason"),
		Attempts: session.BagInt(m, "attempts"), CreatedAt: str("created_at"), DueAt: str("due_at")}, true
}

// due is when the dispatch's job is due; zero is now.
func (p pendingDispatch) due() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, p.DueAt)
	return t
}

// taskID is the job the dispatch waits for; a start recorded with the new session uses the
// session's deterministic start id.
func (p pendingDispatch) taskID(sessionID int64) string {
	return cmp.Or(p.TaskID, tasks.RunSessionTaskID(sessionID, p.Reason))
}

// dispatch queues the agent job of a committed hand-off. The hand-off is already durable, so a
// job that cannot be queued now is logged and returned for the caller to mention; the sweep
// queues it once the queue is back. A duplicate id is this very job, already queued.
func (s *Service) dispatch(ctx context.Context, sessionID int64, h *handOff) error {
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	_, err := s.queue.EnqueueRunSession(ctx, tasks.RunSession{SessionID: sessionID, Prompt: h.prompt, Reason: h.reason, At: h.at}, h.taskID)
	if err == nil || errors.Is(err, tasks.ErrDuplicate) {
		return nil
	}
	s.log.Warn("delivery recorded but its agent job was not queued; the sweep queues it", "session_id", sessionID, "task_id", h.taskID, "err", err)
	return fmt.Errorf("queue the agent job of session %d: %w", sessionID, err)
}

// notQueuedWarning is what a surface says when dispatch failed: the delivery is not lost.
const notQueuedWarning = "Delivered, but its agent job could not be queued right now; it is queued automatically as soon as the job queue answers again."
