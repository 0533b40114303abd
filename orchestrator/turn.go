package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// TurnEnd is where a cleanly ended turn left the session.
type TurnEnd string

// The ends of a clean turn.
const (
	TurnHandedOff TurnEnd = "handed_off"  // the next queued message became the next turn
	TurnPaused    TurnEnd = "needs_input" // nothing queued: the session waits for a human
	TurnSlept     TurnEnd = "waiting"     // a sleep was requested during the turn
)

// PausedBy values (metadata.paused_by).
const (
	PausedByUser     = "user"
	PausedByRecovery = "recovery"
)

// FinishTurn ends a turn the agent finished on its own. The next pending message, if any, is
// claimed and handed to a new job in the same transaction, so the session stays running (no
// needs_input flap, no drain round-trip); otherwise the session pauses to needs_input, or
// sleeps to waiting when a sleep was requested meanwhile. A run that no longer owns the
// session gets ErrNotOwner and changes nothing.
func (s *Service) FinishTurn(ctx context.Context, sessionID int64, taskID string) (TurnEnd, error) {
	var (
		h   *handOff
		end TurnEnd
	)
	asleep := s.asleepOnWake(ctx, sessionID) // a session waiting on a wake rests asleep
	_, err := s.updateWithQueue(ctx, sessionID, func(u *session.Session, q *graph.MessageQueue) error {
		h, end = nil, ""
		if !Owns(u, taskID) {
			return ErrNotOwner
		}
		clearTurn(u)
		next, err := q.ClaimNext()
		if err == nil {
			h, end = deliverMessage(u, next), TurnHandedOff
			if err := s.handOff(u, q, next.Goal, h, "Cannot deliver"); err != nil {
				return err
			}
			// handOff asks a running turn to end; this one already has.
			delete(u.Metadata, session.MetaInterruptRequestedAt)
			return nil
		}
		if !errors.Is(err, ErrMessageNotFound) {
			return err
		}
		if asleep {
			u.Metadata[session.MetaPendingSleep] = true
		}
		end, err = s.rest(u)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("finish the turn of session %d: %w", sessionID, err)
	}
	if h != nil {
		_ = s.dispatch(ctx, sessionID, h) // the hand-off is durable: the sweep queues a job not queued now
	}
	return end, nil
}

// clearTurn drops what belonged to the turn that just ended cleanly.
func clearTurn(u *session.Session) {
	for _, k := range []string{session.MetaActivePrompt, session.MetaProcessPID, session.MetaRecoveryContinueAttempts, session.MetaExitStatus, session.MetaFailureReason, session.MetaFailureMessage, session.MetaTrouble, session.MetaTroubleRetries, session.MetaCompactContinuation} {
		delete(u.Metadata, k)
	}
}

// rest pauses the session (running → needs_input) and executes a pending sleep.
func (s *Service) rest(u *session.Session) (TurnEnd, error) {
	if err := s.applyEvent(u, session.EventPause, "Cannot pause"); err != nil {
		return "", err
	}
	u.RunningJobID = nil
	if !u.Flag(session.MetaPendingSleep) {
		return TurnPaused, nil
	}
	delete(u.Metadata, session.MetaPendingSleep)
	if err := s.applyEvent(u, session.EventSleep, "Cannot sleep"); err != nil {
		return "", err
	}
	return TurnSlept, nil
}

// deliverMessage is the hand-off of a claimed message as the session's next turn.
func deliverMessage(u *session.Session, m *session.Message) *handOff {
	h := newHandOff(u, "follow-up-msg-"+strconv.FormatInt(m.ID, 10), m.Content)
	h.message = m
	u.Metadata[session.MetaNextTurnReason] = "queued_message"
	return h
}

// DrainQueue delivers the next queued message of an idle session (the drain task scheduled when
// a message lands on an idle session or a pause leaves one behind, and the sweep's rule 5). It
// delivers nothing to a session that is busy, blocked on an elicitation, parked for an MCP
// retry or parked for recovery (the orphan sweep continues those, queued message first), and
// reports whether it delivered.
func (s *Service) DrainQueue(ctx context.Context, sessionID int64) (bool, error) {
	var h *handOff
	_, err := s.updateWithQueue(ctx, sessionID, func(u *session.Session, q *graph.MessageQueue) error {
		h = nil
		if !drainable(u) {
			return nil
		}
		next, err := q.ClaimNext()
		if errors.Is(err, ErrMessageNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		h = deliverMessage(u, next)
		return s.handOff(u, q, next.Goal, h, "Cannot deliver")
	})
	if err != nil || h == nil {
		return false, err
	}
	_ = s.dispatch(ctx, sessionID, h) // the hand-off is durable: the sweep queues a job not queued now
	return true, nil
}

// drainable: the session is idle (waiting or needs_input, no job owns it, no delivery waiting
// for its job) and not resting for something other than a prompt. A pending dispatch its job
// can no longer claim (the session was paused meanwhile) does not count.
func drainable(u *session.Session) bool {
	p, pending := pendingOf(u)
	switch {
	case u.Status != session.StatusNeedsInput && u.Status != session.StatusWaiting:
		return false
	case u.RunningJobID != nil || u.Flag(session.MetaBlockedOnElicitation):
		return false
	case pending && claimable(u, p.taskID(u.ID)):
		return false
	}
	by := u.PausedBy()
	return by != "mcp_retry" && by != PausedByRecovery
}
