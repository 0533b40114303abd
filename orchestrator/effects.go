package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// Lifecycle effects run once each, after commit, from a durable record. Every transition writes,
// in its own transaction, a batch naming its after-commit effects (session.Effect.Deferred) into
// metadata.pending_effects, under an id made of the session and its transition number — the same
// on a retried transaction, since the number is read from the record being replaced. After the
// commit the batch is queued as one task whose id is derived from the batch, so a second enqueue
// is refused; the task runs the effects in order and marks each one done, so a redelivered task
// resumes where the last one stopped; the sweep queues again a batch whose task was lost. A
// handler keys what it writes or queues on (Batch, Effect), which makes a redelivery between
// running an effect and marking it done harmless.

// effectRun is one after-commit effect of one committed transition.
type effectRun struct {
	SessionID int64
	Batch     string // "<session id>-<transition number>": stable across retries and redeliveries
	Event     session.Event
	From, To  session.Status
	Effect    session.Effect
	At        time.Time // when the transition was made, on the service clock
	// ResumedFrom is metadata.paused_by before a resume ("user", "recovery", "mcp_retry", or ""
	// when the agent had ended its turn); "" for every other event.
	ResumedFrom string
}

// Key is the effect's idempotency key: whatever it writes or queues is named by it.
func (r effectRun) Key() string { return r.Batch + ":" + string(r.Effect) }

// effectHandler runs one effect; an error makes the task retry from this effect.
type effectHandler func(*Service, context.Context, effectRun) error

// effectHandlers maps each deferred effect to what does it. An effect without an entry is
// recorded and passed over.
var effectHandlers = map[session.Effect]effectHandler{
	session.EffectScheduleDrain:         (*Service).scheduleDrain,
	session.EffectCleanupClone:          (*Service).scheduleCloneCleanup,
	session.EffectPushNeedsInput:        (*Service).pushNeedsInput,
	session.EffectPushFailed:            (*Service).pushFailed,
	session.EffectMarkNotificationStale: (*Service).markNotificationsStale,
	session.EffectDeleteNotifications:   (*Service).deleteNotifications,
	session.EffectFireTriggers:          (*Service).fireAOEventTriggers,
	session.EffectCancelOneTimeWakes:    (*Service).cancelOneTimeWakes,
	session.EffectRemoveWatchers:        (*Service).removeWatchers,
	session.EffectInferTitle:            (*Service).inferTitle,
	session.EffectRefreshStatusSummary:  (*Service).refreshStatusSummary,
}

// effectBatch is the durable record of one transition's after-commit effects.
type effectBatch struct {
	ID          string
	Seq         int
	Event       session.Event
	From, To    session.Status
	At          time.Time
	ResumedFrom string
	Effects     []session.Effect
	Done        int // how many of Effects have run
}

func (b effectBatch) bag() map[string]any {
	effs := make([]any, len(b.Effects))
	for i, e := range b.Effects {
		effs[i] = string(e)
	}
	return map[string]any{"id": b.ID, "seq": b.Seq, "event": string(b.Event), "from": string(b.From), "to": string(b.To),
		"at": b.At.UTC().Format(time.RFC3339Nano), "resumed_from": b.ResumedFrom, "effects": effs, "done": b.Done}
}

func batchFromBag(m map[string]any) effectBatch {
	str := func(k string) string { v, _ := m[k].(string); return v }
	b := effectBatch{ID: str("id"), Seq: session.BagInt(m, "seq"), Event: session.Event(str("event")), From: session.Status(str("from")),
		To: session.Status(str("to")), ResumedFrom: str("resumed_from"), Done: session.BagInt(m, "done")}
	b.At, _ = time.Parse(time.RFC3339Nano, str("at"))
	effs, _ := m["effects"].([]any)
	for _, e := range effs {
		if s, ok := e.(string); ok {
			b.Effects = append(b.Effects, session.Effect(s))
		}
	}
	return b
}

// batchesOf reads the session's pending effect batches, oldest first.
func batchesOf(u *session.Session) []effectBatch {
	list, _ := u.Metadata[session.MetaPendingEffects].([]any)
	out := make([]effectBatch, 0, len(list))
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			out = append(out, batchFromBag(m))
		}
	}
	return out
}

func setBatches(u *session.Session, bs []effectBatch) {
	if len(bs) == 0 {
		delete(u.Metadata, session.MetaPendingEffects)
		return
	}
	list := make([]any, len(bs))
	for i, b := range bs {
		list[i] = b.bag()
	}
	u.Metadata[session.MetaPendingEffects] = list
}

// applyEvent moves u through the lifecycle and records the transition's after-commit effects;
// a refused event is a ValidationError carrying label.
func (s *Service) applyEvent(u *session.Session, ev session.Event, label string) error {
	from := u.Status
	to, effs, err := session.Transition(from, ev, session.Guard{
		HasGitRoot:           u.GitRoot != "",
		BlockedOnElicitation: u.Flag(session.MetaBlockedOnElicitation),
	})
	var te *session.TransitionError
	if errors.As(err, &te) {
		return invalid(label, te.Error())
	}
	if err != nil {
		return err
	}
	u.Status = to
	if effs = session.DeferredEffects(effs); len(effs) == 0 {
		return nil
	}
	seq := session.BagInt(u.Metadata, session.MetaTransitionSeq) + 1
	u.Metadata[session.MetaTransitionSeq] = seq
	b := effectBatch{ID: strconv.FormatInt(u.ID, 10) + "-" + strconv.Itoa(seq), Seq: seq, Event: ev, From: from, To: to,
		At: s.now().UTC(), Effects: effs}
	if ev == session.EventResume {
		b.ResumedFrom = u.PausedBy()
	}
	setBatches(u, append(batchesOf(u), b))
	return nil
}

// update is store.UpdateSession followed by queueing the effects of the transitions it made.
// Every operation that may move a session through the lifecycle writes through it (or
// updateWithQueue).
func (s *Service) update(ctx context.Context, id int64, mutate func(*session.Session) error) (*session.Session, error) {
	return s.updateWithQueue(ctx, id, func(u *session.Session, _ *graph.MessageQueue) error { return mutate(u) })
}

// updateWithQueue is store.UpdateSessionWithQueue followed by queueing the effects of the
// transitions it made.
func (s *Service) updateWithQueue(ctx context.Context, id int64, mutate func(*session.Session, *graph.MessageQueue) error) (*session.Session, error) {
	var seq int
	sess, err := s.store.UpdateSessionWithQueue(ctx, id, func(u *session.Session, q *graph.MessageQueue) error {
		seq = session.BagInt(u.Metadata, session.MetaTransitionSeq)
		return mutate(u, q)
	})
	if err == nil {
		s.queueEffects(ctx, sess, seq)
	}
	return sess, err
}

// queueEffects queues the batches numbered after `after`. A batch not queued now stays
// recorded, and the sweep queues it.
func (s *Service) queueEffects(ctx context.Context, sess *session.Session, after int) {
	var fresh []effectBatch
	for _, b := range batchesOf(sess) {
		if b.Seq > after {
			fresh = append(fresh, b)
		}
	}
	if len(fresh) == 0 {
		return
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	for _, b := range fresh {
		if err := s.queue.EnqueueSessionEffects(ctx, sess.ID, b.ID); err != nil {
			s.log.Warn("transition committed but its effects were not queued; the sweep queues them", "session_id", sess.ID, "batch", b.ID, "err", err)
		}
	}
}

// RunEffects runs the effects of one recorded batch that have not run yet, in order, marking
// each done as it goes; a batch no longer recorded (finished, or its session deleted) is done.
func (s *Service) RunEffects(ctx context.Context, sessionID int64, batch string) error {
	for {
		sess, err := s.store.GetSession(ctx, sessionID)
		if errors.Is(err, graph.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read session %d for effects %s: %w", sessionID, batch, err)
		}
		i := slices.IndexFunc(batchesOf(sess), func(b effectBatch) bool { return b.ID == batch })
		if i < 0 {
			return nil
		}
		b := batchesOf(sess)[i]
		if b.Done < len(b.Effects) {
			e := b.Effects[b.Done]
			if h := s.effects[e]; h != nil {
				run := effectRun{SessionID: sessionID, Batch: b.ID, Event: b.Event, From: b.From, To: b.To, Effect: e, At: b.At, ResumedFrom: b.ResumedFrom}
				if err := h(s, ctx, run); err != nil {
					return fmt.Errorf("effect %s of %s on session %d: %w", e, b.ID, sessionID, err)
				}
			}
		}
		if err := s.markEffectDone(ctx, sessionID, b.ID, b.Done); err != nil {
			return err
		}
	}
}

// markEffectDone records that effect number done of the batch ran, and drops the batch after
// its last one. A second runner that got there first leaves nothing to mark.
func (s *Service) markEffectDone(ctx context.Context, sessionID int64, batch string, done int) error {
	_, err := s.store.UpdateSession(ctx, sessionID, func(u *session.Session) error {
		bs := batchesOf(u)
		i := slices.IndexFunc(bs, func(b effectBatch) bool { return b.ID == batch })
		if i < 0 || bs[i].Done != done {
			return nil
		}
		if bs[i].Done++; bs[i].Done >= len(bs[i].Effects) {
			bs = slices.Delete(bs, i, i+1)
		}
		setBatches(u, bs)
		return nil
	})
	if errors.Is(err, graph.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mark effect %d of %s on session %d done: %w", done, batch, sessionID, err)
	}
	return nil
}

// RedispatchEffects queues again the effect batches, recorded at least grace ago, whose task is
// not alive (never queued because the queue was unreachable, or lost); it reports how many.
func (s *Service) RedispatchEffects(ctx context.Context, grace time.Duration, scope SweepScope, alive func(ctx context.Context, batch string) (bool, error)) (int, error) {
	stale, err := s.store.StalePendingEffects(ctx, s.now().Add(-grace), scope.Text, scope.limit())
	if err != nil {
		return 0, err
	}
	queued := 0
	var errs []error
	for _, sess := range stale {
		for _, b := range batchesOf(sess) {
			ok, err := alive(ctx, b.ID)
			if err != nil {
				return queued, errors.Join(append(errs, fmt.Errorf("are the effects %s of session %d queued: %w", b.ID, sess.ID, err))...)
			}
			if ok {
				continue
			}
			if err := s.queue.EnqueueSessionEffects(ctx, sess.ID, b.ID); err != nil {
				errs = append(errs, err)
				continue
			}
			queued++
			s.log.Warn("effects of a transition were not queued or their task was lost; queued again", "session_id", sess.ID, "batch", b.ID)
		}
	}
	return queued, errors.Join(errs...)
}

// scheduleDrain: a session that rests idle with a queued message gets a drain shortly (the
// drain task's own delay lets a burst of messages settle, and its id absorbs a second request).
func (s *Service) scheduleDrain(ctx context.Context, r effectRun) error {
	n, err := s.store.CountPendingMessages(ctx, r.SessionID)
	if err != nil || n == 0 {
		return err
	}
	return s.queue.EnqueueDrainMessages(ctx, r.SessionID)
}

// scheduleCloneCleanup: once the undo window has passed, the runner removes the archived
// session's clone (or preserves it when it holds work that exists nowhere else).
func (s *Service) scheduleCloneCleanup(ctx context.Context, r effectRun) error {
	sess, err := s.store.GetSession(ctx, r.SessionID)
	if errors.Is(err, graph.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if sess.Status != session.StatusArchived || sess.ArchivedAt == nil {
		return nil // restored already: nothing to clean
	}
	return s.queue.EnqueueCleanupClone(ctx, tasks.CleanupClone{SessionID: r.SessionID, ArchivedAt: *sess.ArchivedAt}, r.Key())
}

// CloneCleanupDue reports whether the session is still in the archive a clone cleanup follows:
// not restored, not archived again since, not deleted.
func (s *Service) CloneCleanupDue(ctx context.Context, p tasks.CleanupClone) (bool, error) {
	sess, err := s.store.GetSession(ctx, p.SessionID)
	if errors.Is(err, graph.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read session %d for its clone cleanup: %w", p.SessionID, err)
	}
	return sess.Status == session.StatusArchived && sess.ArchivedAt != nil && sess.ArchivedAt.Equal(p.ArchivedAt), nil
}
