package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// HeartbeatPrompt is the nudge an idle session with the heartbeat on receives each interval. It
// is automation, never a human's words.
const HeartbeatPrompt = "[AUTOMATED SYSTEM MESSAGE - NOT USER INPUT] Heartbeat: this is your periodic check-in. " +
	"Look at what you are responsible for, act on anything that needs it, and end your turn when there is nothing to do."

// Heartbeats is what one heartbeat sweep did.
type Heartbeats struct {
	Nudged, Stamped, Disabled int
}

// Heartbeat sweeps the sessions whose heartbeat is due: an idle one (needs_input, not blocked on
// an elicitation, no message queued for it) is nudged with HeartbeatPrompt; a running, waiting
// (asleep, a wake armed) or failed one only has its beat stamped; an archived one has its
// heartbeat turned off. Due-ness is re-checked under each session's lock.
func (s *Service) Heartbeat(ctx context.Context, scope SweepScope) (Heartbeats, error) {
	now := s.now()
	due, err := s.store.HeartbeatsDue(ctx, now, scope.Text, scope.limit())
	if err != nil {
		return Heartbeats{}, fmt.Errorf("list the heartbeats due: %w", err)
	}
	var out Heartbeats
	var errs []error
	for _, sess := range due {
		var h *handOff
		var disabled bool
		_, err := s.updateWithQueue(ctx, sess.ID, func(u *session.Session, q *graph.MessageQueue) error {
			h, disabled = nil, false
			if !u.HeartbeatEnabled || (u.HeartbeatLastBeatAt != nil && u.HeartbeatLastBeatAt.Add(time.Duration(u.HeartbeatInterval)*time.Second).After(now)) {
				return errKept
			}
			if u.Status == session.StatusArchived {
				u.HeartbeatEnabled, disabled = false, true
				return nil
			}
			beat := now.UTC()
			u.HeartbeatLastBeatAt = &beat
			if u.Status != session.StatusNeedsInput || u.Flag(session.MetaBlockedOnElicitation) || u.RunningJobID != nil {
				return nil
			}
			if _, pending := pendingOf(u); pending {
				return nil
			}
			queued, err := q.Pending()
			if err != nil || len(queued) > 0 {
				return err
			}
			h = newHandOff(u, "heartbeat-"+beat.Format("20060102T150405"), HeartbeatPrompt)
			u.Metadata[session.MetaNextTurnReason] = "heartbeat"
			return s.handOff(u, q, nil, h, "Cannot deliver the heartbeat")
		})
		switch {
		case errors.Is(err, errKept) || errors.Is(err, graph.ErrNotFound):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("heartbeat of session %d: %w", sess.ID, err))
			continue
		case disabled:
			out.Disabled++
			s.timeline(ctx, sess.ID, session.LogInfo, "Heartbeat turned off: the session is archived")
		case h != nil:
			out.Nudged++
			_ = s.dispatch(ctx, sess.ID, h) // the hand-off is durable: the sweep queues a job not queued now
		default:
			out.Stamped++
		}
	}
	return out, errors.Join(errs...)
}
