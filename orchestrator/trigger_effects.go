package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/trigger"
)

// The lifecycle effects the triggers own (see effects.go): firing ao_event triggers,
// cancelling wakes on a takeover resume, removing an archived session's watchers.

// fireAOEventTriggers queues the fires of the session's event, keyed on the transition, so a
// redelivered effect queues nothing twice. A needs_input waits to settle first.
func (s *Service) fireAOEventTriggers(ctx context.Context, r effectRun) error {
	ev := trigger.EventOf(r.Event)
	if ev == "" {
		return nil
	}
	return s.queueSessionEvent(ctx, r.SessionID, ev, r.Batch)
}

func (s *Service) queueSessionEvent(ctx context.Context, sessionID int64, ev, batch string) error {
	var delay time.Duration
	if ev == trigger.EventNeedsInput {
		delay = s.settle
	}
	return s.queue.EnqueueSessionEvent(ctx, tasks.SessionEvent{SessionID: sessionID, Event: ev, Batch: batch}, delay)
}

// cancelOneTimeWakes ends the session's wakes when a human takes back a session they paused by
// hand. Every other resume keeps them: a follow-up, a queued message or a message_parent report
// is a turn inside the wait (a follow-up never cancels a wake), and a recovery resume continues
// the session it interrupted.
func (s *Service) cancelOneTimeWakes(ctx context.Context, r effectRun) error {
	if r.ResumedFrom != PausedByUser {
		return nil
	}
	_, err := s.CancelWakes(ctx, r.SessionID)
	return err
}

// removeWatchers: see RemoveWatchers.
func (s *Service) removeWatchers(ctx context.Context, r effectRun) error {
	return s.RemoveWatchers(ctx, r.SessionID)
}

// FireSessionEvent is the trigger:session_event task: it fires every ao_event condition the
// session's event reaches, each under a key of the condition and the transition. A needs_input
// the session has already left again (a turn boundary, a recovery parking, a queued message
// about to be delivered) is no rest and fires nothing.
func (s *Service) FireSessionEvent(ctx context.Context, p tasks.SessionEvent) error {
	sess, err := s.store.GetSession(ctx, p.SessionID)
	if errors.Is(err, graph.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Event == trigger.EventNeedsInput {
		if ok, err := s.settled(ctx, sess); err != nil || !ok {
			return err
		}
	}
	listeners, err := s.store.AOEventListeners(ctx, p.Event, sess.ID, sess.IsAutonomous)
	if err != nil {
		return err
	}
	vars := map[string]string{"event": p.Event, "title": sess.DisplayTitle(),
		"text": fmt.Sprintf("Session #%d (%s) reached %s", sess.ID, sess.DisplayTitle(), p.Event)}
	var errs []error
	for _, l := range listeners {
		_, err := s.fire(ctx, fireRequest{triggerID: l.TriggerID, conditionID: l.ConditionID,
			key: fmt.Sprintf("ao_event:%d:%s", l.ConditionID, p.Batch), vars: vars, source: sess.ID})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// settled: the session rests in needs_input and nothing is about to move it on.
func (s *Service) settled(ctx context.Context, u *session.Session) (bool, error) {
	if u.Status != session.StatusNeedsInput || u.RunningJobID != nil {
		return false, nil
	}
	if _, pending := pendingOf(u); pending {
		return false, nil
	}
	if by := u.PausedBy(); by == PausedByRecovery || by == "mcp_retry" {
		return false, nil
	}
	n, err := s.store.CountPendingMessages(ctx, u.ID)
	return n == 0, err
}
