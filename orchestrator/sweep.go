package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// Recovery of sessions whose worker died (the orphan sweep) and of sessions a shutting-down
// worker handed back. The rule:
//
//  1. A session is orphaned when it is running, its record has not changed for the grace
//     period, no delivery to it is pending dispatch (rule 4 below has those), and its
//     running_job_id is not alive: neither waiting in the queue nor held by a
//     live runner (the runner keeps a short lease of its own while it works; Asynq's view of an
//     active task lags by its 30-second lease). A session no job owns at all is orphaned too.
//  2. An orphan is parked — needs_input with paused_by=recovery — if it is still running under
//     the same job when the sweep gets to it (anything that took it over since wins).
//  3. Every session parked for recovery is continued: its next queued message if it has one,
//     else the SYSTEM_RECOVERY nudge (its original prompt when the runtime never started). At
//     most MaxRecoveryAttempts continues run without a clean turn end in between; after that
//     the marker is dropped, recovery_continue_abandoned recorded, and the session rests in
//     needs_input for a human.

// SystemRecoveryPrompt is the turn a recovered session resumes with.
const SystemRecoveryPrompt = "SYSTEM_RECOVERY: your previous turn was cut off because the Zimmer worker running it stopped. " +
	"Check where you left off (the working tree and your last steps) and continue the task from there."

// MaxRecoveryAttempts bounds consecutive recovery continues of one session.
const MaxRecoveryAttempts = 3

// Orphan is a running session whose run is gone.
type Orphan struct {
	Session *session.Session
	JobID   string // the running_job_id it was found with ("" when none)
	Why     string
}

// SweepScope narrows a sweep to the sessions whose custom_metadata mentions Text — a label for
// deployments (and tests) where independent queues share one graph, so one queue's sweep never
// recovers sessions another queue owns. The zero scope is every session.
type SweepScope struct {
	Text  string
	Limit int // sessions looked at per step (100 when 0)
}

func (sc SweepScope) limit() int {
	if sc.Limit > 0 {
		return sc.Limit
	}
	return 100
}

// maxSweepPages bounds how many pages of stale running sessions one sweep reads.
const maxSweepPages = 20

// FindOrphans lists up to a page of running sessions in scope, unchanged for grace, whose run
// alive reports dead. It reads page after page of stale sessions (a long healthy turn is stale
// too, and alive), so live sessions never hide orphans behind them.
func (s *Service) FindOrphans(ctx context.Context, grace time.Duration, scope SweepScope, alive func(context.Context, string) (bool, error)) ([]Orphan, error) {
	var out []Orphan
	before := s.now().Add(-grace)
	for page := 0; page < maxSweepPages && len(out) < scope.limit(); page++ {
		stale, err := s.store.StaleRunningSessions(ctx, before, scope.Text, page*scope.limit(), scope.limit())
		if err != nil {
			return nil, err
		}
		for _, sess := range stale {
			o, dead, err := orphaned(ctx, sess, alive)
			if err != nil {
				return nil, err
			}
			if dead {
				out = append(out, o)
			}
		}
		if len(stale) < scope.limit() {
			break
		}
	}
	return out, nil
}

func orphaned(ctx context.Context, sess *session.Session, alive func(context.Context, string) (bool, error)) (Orphan, bool, error) {
	if _, pending := pendingOf(sess); pending {
		return Orphan{}, false, nil // its job never started: rule 4 queues it again
	}
	if sess.RunningJobID == nil {
		return Orphan{Session: sess, Why: "no job owns it"}, true, nil
	}
	ok, err := alive(ctx, *sess.RunningJobID)
	if err != nil {
		return Orphan{}, false, fmt.Errorf("is run %s of session %d alive: %w", *sess.RunningJobID, sess.ID, err)
	}
	return Orphan{Session: sess, JobID: *sess.RunningJobID,
		Why: fmt.Sprintf("its job %s is neither queued nor held by a live worker", *sess.RunningJobID)}, !ok, nil
}

// ParkOrphan parks an orphan for recovery, unless it left running or changed hands since it
// was found (ErrNotOwner).
func (s *Service) ParkOrphan(ctx context.Context, o Orphan) error {
	_, err := s.update(ctx, o.Session.ID, func(u *session.Session) error {
		if u.Status != session.StatusRunning || deref(u.RunningJobID, "") != o.JobID {
			return ErrNotOwner
		}
		u.Metadata[session.MetaRecoveredOrphanAt] = s.now().UTC().Format(time.RFC3339)
		return s.park(u)
	})
	if err != nil {
		return fmt.Errorf("park orphaned session %d: %w", o.Session.ID, err)
	}
	s.timeline(ctx, o.Session.ID, session.LogWarning, "Orphaned run recovered: "+o.Why+"; parked for recovery")
	return nil
}

// Recovered counts what ContinueRecovered did.
type Recovered struct {
	Continued, Abandoned int
}

// ContinueRecovered continues the sessions in scope parked for recovery (rule 3 above).
func (s *Service) ContinueRecovered(ctx context.Context, scope SweepScope) (Recovered, error) {
	parked, err := s.store.RecoveryParkedSessions(ctx, scope.Text, scope.limit())
	if err != nil {
		return Recovered{}, err
	}
	var out Recovered
	var errs []error
	for _, sess := range parked {
		if ctx.Err() != nil { // the worker is stopping: the next sweep takes the rest
			break
		}
		continued, abandoned, err := s.continueRecovered(ctx, sess.ID)
		if err != nil {
			errs = append(errs, err)
		}
		if continued {
			out.Continued++
		}
		if abandoned {
			out.Abandoned++
		}
	}
	return out, errors.Join(errs...)
}

func (s *Service) continueRecovered(ctx context.Context, id int64) (continued, abandoned bool, err error) {
	token := rand.Text() // drawn outside the retried transaction, so the task id is stable
	var h *handOff
	_, err = s.updateWithQueue(ctx, id, func(u *session.Session, q *graph.MessageQueue) (err error) {
		h, abandoned = nil, false
		if u.Metadata[session.MetaPausedBy] != PausedByRecovery || (u.Status != session.StatusNeedsInput && u.Status != session.StatusWaiting) {
			return nil
		}
		attempts := session.BagInt(u.Metadata, session.MetaRecoveryContinueAttempts)
		prompt := recoveryPrompt(u)
		if attempts >= MaxRecoveryAttempts || prompt == "" {
			delete(u.Metadata, session.MetaPausedBy)
			u.Metadata[session.MetaRecoveryContinueAbandoned] = s.now().UTC().Format(time.RFC3339)
			abandoned = true
			return nil
		}
		var goal *string
		if h, goal, err = recoveryTurn(u, q, prompt, token); err != nil {
			return err
		}
		u.Metadata[session.MetaRecoveryContinueAttempts] = attempts + 1
		return s.handOff(u, q, goal, h, "Cannot recover")
	})
	if err != nil {
		return false, false, fmt.Errorf("continue recovered session %d: %w", id, err)
	}
	if abandoned {
		s.timeline(ctx, id, session.LogError, fmt.Sprintf("Recovery abandoned after %d attempts; the session waits for a human", MaxRecoveryAttempts))
	}
	if h == nil {
		return false, abandoned, nil
	}
	_ = s.dispatch(ctx, id, h) // the hand-off is durable: the next sweep queues a job not queued now
	return true, false, nil
}

// recoveryTurn picks what a recovered session runs next: a turn it never received comes first
// (it was sent before anything still queued), then the next queued message, then the nudge.
func recoveryTurn(u *session.Session, q *graph.MessageQueue, prompt, token string) (*handOff, *string, error) {
	if _, undelivered := u.Metadata[session.MetaUndeliveredPrompt]; !undelivered {
		next, err := q.ClaimNext()
		if err == nil {
			return deliverMessage(u, next), next.Goal, nil
		}
		if !errors.Is(err, ErrMessageNotFound) {
			return nil, nil, err
		}
	}
	delete(u.Metadata, session.MetaUndeliveredPrompt)
	u.Metadata[session.MetaNextTurnReason] = "recovery"
	return newHandOff(u, "recovery-"+token, prompt), nil, nil
}

// recoveryPrompt is a turn the agent never received, else the nudge, else the original prompt
// when the runtime never started (there is no conversation to nudge).
func recoveryPrompt(u *session.Session) string {
	if p := session.BagString(u.Metadata, session.MetaUndeliveredPrompt); p != "" {
		return p
	}
	if u.Flag(session.MetaRuntimeStarted) {
		return SystemRecoveryPrompt
	}
	return deref(u.Prompt, "")
}

// Rule 4, a delivery whose job was lost: a session with a pending dispatch (a start, a
// follow-up, a queued message, a recovery turn handed to a job that never claimed it),
// unchanged for the grace period, whose job is not alive (never queued because the queue was
// unreachable, or lost before its claim: a worker died, the claim failed), is queued again
// under a fresh task id, which alone may claim it. A sweep that cannot reach the queue does
// nothing, so an outage spends no attempt; after MaxRecoveryAttempts jobs queued and lost the
// session fails, saying so, instead of waiting forever. A session that stopped waiting for the
// job (paused, archived, failed meanwhile) drops the dispatch.

// RedispatchPending applies rule 4 to the sessions in scope and reports how many it queued
// again.
func (s *Service) RedispatchPending(ctx context.Context, grace time.Duration, scope SweepScope, alive func(context.Context, string) (bool, error)) (int, error) {
	stale, err := s.store.StalePendingDispatches(ctx, s.now().Add(-grace), scope.Text, scope.limit())
	if err != nil {
		return 0, err
	}
	requeued := 0
	var errs []error
	for _, sess := range stale {
		p, ok := pendingOf(sess)
		if !ok {
			continue
		}
		lost := p.taskID(sess.ID)
		ok, err := alive(ctx, lost)
		if err != nil {
			return requeued, errors.Join(append(errs, fmt.Errorf("is job %s of session %d alive: %w", lost, sess.ID, err))...)
		}
		if ok {
			continue
		}
		again, err := s.redispatch(ctx, sess.ID, lost)
		if err != nil {
			errs = append(errs, err)
		}
		if again {
			requeued++
		}
	}
	return requeued, errors.Join(errs...)
}

func (s *Service) redispatch(ctx context.Context, id int64, lost string) (bool, error) {
	var (
		h       *handOff
		dropped string
		failed  int
	)
	token := rand.Text() // drawn outside the retried transaction, so the task id is stable
	_, err := s.update(ctx, id, func(u *session.Session) error {
		h, dropped, failed = nil, "", 0
		p, ok := pendingOf(u)
		if !ok || p.taskID(u.ID) != lost {
			return ErrNotOwner // claimed or handed on since it was found
		}
		if !claimable(u, lost) {
			delete(u.Metadata, session.MetaPendingDispatch)
			dropped = string(u.Status)
			return nil
		}
		if p.Attempts >= MaxRecoveryAttempts {
			delete(u.Metadata, session.MetaPendingDispatch)
			failed = p.Attempts + 1
			u.RunningJobID = nil
			u.Metadata[session.MetaFailureReason] = fmt.Sprintf("Never delivered: the agent job of its %s was lost %d times", p.Reason, failed)
			return s.applyEvent(u, session.EventFail, "Cannot fail")
		}
		h = &handOff{taskID: tasks.RunSessionTaskID(u.ID, p.Reason+"-"+token), prompt: p.Prompt, reason: p.Reason}
		p.TaskID, p.Attempts = h.taskID, p.Attempts+1
		u.Metadata[session.MetaPendingDispatch] = p.bag()
		u.JobID = &h.taskID
		if u.RunningJobID != nil {
			u.RunningJobID = &h.taskID
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrNotOwner):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("queue again the lost job of session %d: %w", id, err)
	case dropped != "":
		s.timeline(ctx, id, session.LogWarning, fmt.Sprintf("Job %s was lost before it ran; the session is now %s, so it is not queued again", lost, dropped))
		return false, nil
	case failed > 0:
		s.timeline(ctx, id, session.LogError, fmt.Sprintf("Job %s was lost before it ran, %d times; the session failed", lost, failed))
		return false, nil
	}
	if err := s.dispatch(ctx, id, h); err != nil {
		return false, err // the next sweep tries again
	}
	s.timeline(ctx, id, session.LogWarning, fmt.Sprintf("Job %s was lost before it ran; queued again as %s", lost, h.taskID))
	return true, nil
}

// Rule 5, queued messages on an idle session: a session resting in waiting or needs_input with
// a queued message and nothing that keeps it (a human's pause, an elicitation, a recovery or MCP
// retry, a pending dispatch), unchanged for the grace period, is drained. The drain task
// scheduled when the message landed normally gets there first; this catches one whose task was
// never queued or was lost.

// DrainIdle applies rule 5 to the sessions in scope and reports how many messages it delivered.
func (s *Service) DrainIdle(ctx context.Context, grace time.Duration, scope SweepScope) (int, error) {
	idle, err := s.store.IdleSessionsWithQueuedMessages(ctx, s.now().Add(-grace), scope.Text, scope.limit())
	if err != nil {
		return 0, err
	}
	delivered := 0
	var errs []error
	for _, sess := range idle {
		ok, err := s.DrainQueue(ctx, sess.ID)
		if err != nil {
			errs = append(errs, fmt.Errorf("drain idle session %d: %w", sess.ID, err))
		}
		if ok {
			delivered++
		}
	}
	return delivered, errors.Join(errs...)
}
