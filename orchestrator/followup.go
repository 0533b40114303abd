package orchestrator

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// FollowUpParams are the arguments of a follow-up, shared by REST and MCP action_session.
type FollowUpParams struct {
	Prompt string
	// Goal means the same on every path: non-blank becomes the session's goal (on the queued
	// path when the message is delivered), blank or absent leaves the goal alone.
	Goal *string
	// ForceImmediate interrupts: the prompt jumps the queue and is delivered now, ending a
	// running turn.
	ForceImmediate bool
	// ActingSessionID is the caller's self-declared session (raw text); see RecordUncle.
	ActingSessionID string
	Source          string // uncle-edge source; SourceFollowUp when empty
	// captured runs once the follow-up has landed (queued, or the session resumed) and before
	// its agent job is dispatched; set only by this package's capture boundaries (capture.go).
	captured delivered
}

// FollowUpOutcome says which path a follow-up took.
type FollowUpOutcome string

// The three delivery paths.
const (
	FollowUpSent      FollowUpOutcome = "sent"      // idle session: resumed with the prompt
	FollowUpQueued    FollowUpOutcome = "queued"    // running session: appended to its queue
	FollowUpImmediate FollowUpOutcome = "immediate" // force_immediate: delivered as an interrupt
)

// FollowUpResult is the outcome of FollowUp.
type FollowUpResult struct {
	Session *session.Session
	Outcome FollowUpOutcome
	Message *session.Message // the queued message, on the queued path
	// Warnings say what the caller should know although the follow-up was delivered (its
	// agent job could not be queued yet).
	Warnings []string
}

// runReason is the RunSession reason of every delivery made here.
const runReason = "follow_up"

// FollowUp delivers a prompt to an existing session: a running session queues it for the end
// of its turn, a waiting or needs_input one resumes with it now, and ForceImmediate interrupts.
// Failed and archived sessions refuse it on every path.
func (s *Service) FollowUp(ctx context.Context, id int64, p FollowUpParams) (FollowUpResult, error) {
	prompt, err := requiredText("Prompt", p.Prompt, session.MaxPrompt)
	if err != nil {
		return FollowUpResult{}, err
	}
	goal, err := optionalGoal(p.Goal)
	if err != nil {
		return FollowUpResult{}, err
	}
	source := cmp.Or(p.Source, SourceFollowUp)
	if p.ForceImmediate {
		sess, h, err := s.interrupt(ctx, id, target{stage: &session.NewMessage{Content: prompt, Goal: goal}, refusal: "Cannot send follow-up"})
		if err != nil {
			return FollowUpResult{}, err
		}
		ctx, cancel := afterCommit(ctx)
		defer cancel()
		out := FollowUpResult{Session: sess, Outcome: FollowUpImmediate}
		if s.dispatch(ctx, sess.ID, h) != nil {
			out.Warnings = append(out.Warnings, notQueuedWarning)
		}
		s.RecordUncle(ctx, sess.ID, p.ActingSessionID, source)
		return out, nil
	}
	out, h, err := s.routeFollowUp(ctx, id, prompt, goal)
	if err != nil {
		return FollowUpResult{}, err
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	if p.captured != nil {
		p.captured(ctx, out.Session.ID, out.Outcome == FollowUpQueued)
	}
	if h != nil && s.dispatch(ctx, out.Session.ID, h) != nil {
		out.Warnings = append(out.Warnings, notQueuedWarning)
	}
	s.RecordUncle(ctx, out.Session.ID, p.ActingSessionID, source)
	return out, nil
}

// routeFollowUp decides the path under the session's lock, so the status it branches on is the
// status the delivery lands on: a running session gets a queued message, an idle one the prompt
// and a resume (whose job the caller then dispatches, after commit).
func (s *Service) routeFollowUp(ctx context.Context, id int64, prompt string, goal *string) (FollowUpResult, *handOff, error) {
	token := rand.Text() // drawn once, outside the retried transaction, so the task id is stable
	var (
		queued *session.Message
		h      *handOff
	)
	sess, err := s.updateWithQueue(ctx, id, func(u *session.Session, q *graph.MessageQueue) (err error) {
		queued, h = nil, nil
		switch u.Status {
		case session.StatusFailed, session.StatusArchived:
			return refuseFollowUp(u)
		case session.StatusRunning:
			queued, err = q.Append(session.NewMessage{Content: prompt, Goal: goal, Origin: session.OriginCaller})
			return err
		}
		h = newHandOff(u, "follow-up-"+token, prompt)
		u.Prompt = &prompt // a REST follow-up to an idle session overwrites the prompt, as the original does
		return s.handOff(u, q, goal, h, "Cannot send follow-up")
	})
	if err != nil {
		return FollowUpResult{}, nil, err
	}
	if queued != nil {
		return FollowUpResult{Session: sess, Outcome: FollowUpQueued, Message: queued}, nil, nil
	}
	return FollowUpResult{Session: sess, Outcome: FollowUpSent}, h, nil
}

func refuseFollowUp(u *session.Session) error {
	return invalid("Cannot send follow-up", fmt.Sprintf(
		"Session #%d is %s; a follow-up can only reach a running, waiting or needs_input session (unarchive or restart it first)", u.ID, u.Status))
}

// Interrupt delivers a queued message now: it moves to the front of the queue, is claimed and
// handed to a new agent job, and a running turn is asked to end. Only running, waiting and
// needs_input sessions can be interrupted.
func (s *Service) Interrupt(ctx context.Context, id, messageID int64, acting string) (*session.Session, error) {
	return s.InterruptFrom(ctx, id, messageID, acting, SourceInterrupt)
}

// InterruptFrom is Interrupt recording source on the uncle edge (SourceInterrupt when empty),
// for surfaces other than REST.
func (s *Service) InterruptFrom(ctx context.Context, id, messageID int64, acting, source string) (*session.Session, error) {
	sess, h, err := s.interrupt(ctx, id, target{messageID: messageID, refusal: "Cannot interrupt"})
	if err != nil {
		return nil, err
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	_ = s.dispatch(ctx, sess.ID, h) // delivered either way: the sweep queues a job that is not queued now
	s.RecordUncle(ctx, sess.ID, acting, cmp.Or(source, SourceInterrupt))
	return sess, nil
}

// target is what an interrupt delivers: a message already queued, or one staged for it.
type target struct {
	messageID int64
	stage     *session.NewMessage
	refusal   string // the label of the refusal when the session cannot take it
}

// interrupt stages (or takes) the target message, moves it to position 1 and hands it off, all
// under the session's lock, so it is delivered exactly once and the rest keep their order. The
// caller dispatches the returned hand-off.
func (s *Service) interrupt(ctx context.Context, id int64, t target) (*session.Session, *handOff, error) {
	var h *handOff
	sess, err := s.updateWithQueue(ctx, id, func(u *session.Session, q *graph.MessageQueue) error {
		h = nil
		if !interruptible(u.Status) {
			return invalid(t.refusal, fmt.Sprintf(
				"Session #%d is %s; only a running, waiting or needs_input session can take a message now", u.ID, u.Status))
		}
		claimed, err := claimForInterrupt(q, t)
		if err != nil {
			return err
		}
		h = newHandOff(u, "follow-up-msg-"+strconv.FormatInt(claimed.ID, 10), claimed.Content)
		h.message = claimed
		return s.handOff(u, q, claimed.Goal, h, t.refusal)
	})
	if err != nil {
		return nil, nil, err
	}
	return sess, h, nil
}

func interruptible(st session.Status) bool {
	return st == session.StatusRunning || st == session.StatusWaiting || st == session.StatusNeedsInput
}

func claimForInterrupt(q *graph.MessageQueue, t target) (*session.Message, error) {
	id := t.messageID
	if t.stage != nil {
		staged, err := q.Append(*t.stage)
		if err != nil {
			return nil, err
		}
		id = staged.ID
	}
	m, err := q.Get(id)
	if err != nil {
		return nil, err
	}
	if m.Status != session.MessagePending {
		return nil, fmt.Errorf("message %d is %s, not pending, so it cannot be sent now: %w", id, m.Status, ErrConflict)
	}
	if _, err := q.Move(id, 1); err != nil {
		return nil, err
	}
	claimed, err := q.ClaimNext()
	if err != nil {
		return nil, err
	}
	if claimed.ID != id { // cannot happen under the lock; refuse rather than deliver the wrong one
		return nil, fmt.Errorf("claimed message %d instead of %d: %w", claimed.ID, id, ErrConflict)
	}
	return claimed, nil
}

// handOff is one delivery, decided under the session's lock and dispatched after commit.
type handOff struct {
	taskID, prompt, reason string
	message                *session.Message // the claimed message it delivers; nil on the direct path
}

func newHandOff(u *session.Session, reason, prompt string) *handOff {
	return &handOff{taskID: tasks.RunSessionTaskID(u.ID, reason), prompt: prompt, reason: runReason}
}

// handOff points the session's next turn at h: a non-blank goal replaces the session's, an idle
// session resumes, a running one is asked to end its turn, the new job is recorded as the one
// that owns the session, and the delivery is recorded as pending dispatch. The message it
// delivers leaves the queue in the same transaction: from here on the pending dispatch holds it.
func (s *Service) handOff(u *session.Session, q *graph.MessageQueue, goal *string, h *handOff, label string) error {
	if goal != nil {
		g := s.Catalog().ResolveGoal(*goal)
		u.Goal = &g
	}
	if u.Status == session.StatusRunning {
		// The runner that owns the turn ends it when it sees this (the original signals the
		// process, or records interrupt_terminate_pid for the monitor loop).
		u.Metadata[session.MetaInterruptRequestedAt] = s.now().UTC().Format(time.RFC3339Nano)
	} else {
		if err := s.applyEvent(u, session.EventResume, label); err != nil {
			return err
		}
		clearResumeMarkers(u)
	}
	u.JobID, u.RunningJobID = &h.taskID, &h.taskID
	u.Metadata[session.MetaPendingDispatch] = s.newPending(h.taskID, h.prompt, h.reason)
	if h.message != nil {
		return q.Delete(h.message.ID)
	}
	return nil
}

// clearResumeMarkers is the resume event's bookkeeping: stale MCP failure keys, the pause
// reason, drain attempts, elicitation markers and a pending sleep belong to the turn that ended.
func clearResumeMarkers(u *session.Session) {
	for _, k := range []string{session.CustomShouldFailSession, session.CustomMCPConnectionChecked, session.CustomMCPFailedServers, session.CustomMCPFailureReason, session.CustomMCPServersStatus} {
		delete(u.CustomMetadata, k)
	}
	for _, k := range []string{session.MetaPausedBy, session.MetaEnqueuedDrainAttempts, session.MetaBlockedOnElicitation, session.MetaLostElicitation, session.MetaPendingSleep} {
		delete(u.Metadata, k)
	}
}
