package orchestrator

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/zimmerhq/zimmer/session"
)

// The notification effects of the lifecycle (see the transition table in session/lifecycle.go).
// Each runs at least once after its transition commits; what it writes is keyed on the batch
// and the effect, so running it again changes nothing.

// pushNeedsInput is EffectPushNeedsInput (pause): a session that opted in to pushes gets one if
// it still rests in this same needs_input NeedsInputDebounce later. The delayed job's id is the
// batch's, so a redelivered effect schedules it once.
func (s *Service) pushNeedsInput(ctx context.Context, r effectRun) error {
	sess, err := s.store.GetSession(ctx, r.SessionID)
	if errors.Is(err, ErrNotFound) || (err == nil && !sess.PushNotificationsEnabled) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.queue.EnqueueNeedsInputPush(ctx, r.SessionID, r.Batch)
}

// NeedsInputPush is the debounced needs_input push of the pause of batch: it records the
// notification (and queues its delivery) only if the session has not transitioned since, and
// still has pushes on. A session that flapped (resumed and paused again) has a later pause of
// its own, whose push this one leaves to it.
func (s *Service) NeedsInputPush(ctx context.Context, sessionID int64, batch string) error {
	sess, err := s.store.GetSession(ctx, sessionID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !sess.PushNotificationsEnabled || !stillAfter(sess, batch, session.StatusNeedsInput) {
		return nil
	}
	key := effectRun{Batch: batch, Effect: session.EffectPushNeedsInput}.Key()
	_, err = s.notify(ctx, sessionID, key, session.NotifyNeedsInput, "")
	return ignoreMissing(err)
}

// pushFailed is EffectPushFailed (fail): a failure is always pushed, opt-in or not, unless the
// session has already left the failure (restarted meanwhile).
func (s *Service) pushFailed(ctx context.Context, r effectRun) error {
	sess, err := s.store.GetSession(ctx, r.SessionID)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !stillAfter(sess, r.Batch, session.StatusFailed) {
		return nil
	}
	_, err = s.notify(ctx, r.SessionID, r.Key(), session.NotifySessionFailed, "")
	return ignoreMissing(err)
}

// markNotificationsStale is EffectMarkNotificationStale (resume, unblock): the session was
// actioned, so what it asked for is no longer pending. Only notifications up to the transition
// go stale: one about a later rest stays.
func (s *Service) markNotificationsStale(ctx context.Context, r effectRun) error {
	_, err := s.store.MarkSessionNotificationsStale(ctx, r.SessionID, r.At)
	return err
}

// deleteNotifications is EffectDeleteNotifications (archive); as with staleness, only those up
// to the archive, so a session restored meanwhile keeps its newer ones.
func (s *Service) deleteNotifications(ctx context.Context, r effectRun) error {
	_, err := s.store.DeleteSessionNotifications(ctx, r.SessionID, r.At)
	return err
}

// stillAfter reports whether the session is where the transition of batch left it: in status
// `to`, with no transition since (the batch id "<sessionID>-<seq>" carries the transition's
// number, and the session's metadata the number of its latest).
func stillAfter(sess *session.Session, batch string, to session.Status) bool {
	seq, err := strconv.Atoi(batch[strings.LastIndexByte(batch, '-')+1:])
	return err == nil && sess.Status == to && session.BagInt(sess.Metadata, session.MetaTransitionSeq) == seq
}

// ignoreMissing treats a session deleted meanwhile as nothing left to do.
func ignoreMissing(err error) error {
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}
