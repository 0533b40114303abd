package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// The spot scheduler's resumption of sessions parked by pause_into_spot_queue or the ceiling
// sweep (asleep in waiting with metadata.spot_queued_at and no wake): every tick resumes the
// longest parked first, at most as many as the agents lane can start, into pools the spot gate
// has room in (spot_gate.go).

// SpotResumePrompt is the turn a parked session that already has a conversation resumes with.
const SpotResumePrompt = "SPOT_RESUME: you were parked in the spot queue and a slot is free now. " +
	"Continue the task from where you left off."

// resumeSpotParked resumes up to slots parked sessions in scope, longest parked first, each
// only while the gate, with the resume margin, has room in its pool; held records why a pool's
// parked work waits. Each resumes with its next queued message if it has one, else
// SpotResumePrompt (its original prompt when the runtime never started).
func (s *Service) resumeSpotParked(ctx context.Context, st spotState, slots int, scope SweepScope, held map[string]string) (int, error) {
	if slots <= 0 {
		return 0, nil
	}
	// Sessions of a closed pool stay parked, so read past them for ones of an open pool.
	parked, err := s.store.SpotParkedSessions(ctx, scope.Text, slots+scope.limit())
	if err != nil {
		return 0, err
	}
	var (
		resumed int
		errs    []error
	)
	for _, sess := range parked {
		if ctx.Err() != nil || resumed == slots { // the worker is stopping, or no slot is left: the next tick takes the rest
			break
		}
		if d := st.decide(sess.AgentRuntime, spotResumeMarginPct); !d.Admit {
			held[sess.AgentRuntime] = d.Reason + ": " + d.Detail
			continue
		}
		ok, err := s.resumeSpot(ctx, sess.ID)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			resumed++
			if st.pools != nil {
				load := st.pools[sess.AgentRuntime]
				load.Running++
				st.pools[sess.AgentRuntime] = load
			}
		}
	}
	return resumed, errors.Join(errs...)
}

func (s *Service) resumeSpot(ctx context.Context, id int64) (bool, error) {
	token := rand.Text() // drawn outside the retried transaction, so the task id is stable
	var h *handOff
	_, err := s.updateWithQueue(ctx, id, func(u *session.Session, q *graph.MessageQueue) (err error) {
		h = nil
		if !spotParked(u) {
			return nil // resumed, archived or taken over since it was listed
		}
		var goal *string
		if h, goal, err = spotTurn(u, q, token); err != nil || h == nil {
			return err
		}
		return s.handOff(u, q, goal, h, "Cannot resume")
	})
	if err != nil {
		return false, fmt.Errorf("resume spot-parked session %d: %w", id, err)
	}
	if h == nil {
		return false, nil
	}
	s.timeline(ctx, id, session.LogInfo, "Resumed from the spot queue: a slot was free")
	_ = s.dispatch(ctx, id, h) // the hand-off is durable: the sweep queues a job not queued now
	return true, nil
}

// spotParked: asleep in the spot queue, no job owning it nor about to claim it.
func spotParked(u *session.Session) bool {
	p, pending := pendingOf(u)
	return u.Status == session.StatusWaiting && session.BagString(u.Metadata, session.MetaSpotQueuedAt) != "" &&
		u.RunningJobID == nil && !(pending && claimable(u, p.taskID(u.ID)))
}

// spotTurn picks what a parked session runs: its next queued message, else the resume nudge,
// else (the runtime never started) its original prompt. A session with none of them has
// nothing to run: it leaves the queue and waits for a human.
func spotTurn(u *session.Session, q *graph.MessageQueue, token string) (*handOff, *string, error) {
	next, err := q.ClaimNext()
	if err == nil {
		return deliverMessage(u, next), next.Goal, nil
	}
	if !errors.Is(err, ErrMessageNotFound) {
		return nil, nil, err
	}
	prompt := SpotResumePrompt
	if !u.Flag(session.MetaRuntimeStarted) {
		prompt = deref(u.Prompt, "")
	}
	if prompt == "" {
		delete(u.Metadata, session.MetaSpotQueuedAt)
		return nil, nil, nil
	}
	u.Metadata[session.MetaNextTurnReason] = "spot_resume"
	return newHandOff(u, "spot-"+token, prompt), nil, nil
}
