package orchestrator

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/session"
)

// RecordEffects makes every effect of effs call run instead of its handler.
func (s *Service) RecordEffects(effs []session.Effect, run func(ctx context.Context, sessionID int64, batch string, e session.Effect) error) {
	s.effects = map[session.Effect]effectHandler{}
	for _, e := range effs {
		s.effects[e] = func(_ *Service, ctx context.Context, r effectRun) error {
			return run(ctx, r.SessionID, r.Batch, r.Effect)
		}
	}
}

// ApplyEvent moves a session through one lifecycle event on the operations' write path.
func (s *Service) ApplyEvent(ctx context.Context, id int64, ev session.Event) (*session.Session, error) {
	return s.update(ctx, id, func(u *session.Session) error { return s.applyEvent(u, ev, "Cannot "+string(ev)) })
}

// RunEffectAgain runs effect e of a recorded batch once more, as a task redelivered between
// running it and marking it done would.
func (s *Service) RunEffectAgain(ctx context.Context, sessionID int64, batch string, e session.Effect) error {
	sess, err := s.store.GetSession(ctx, sessionID)
	if err != nil {
		return err
	}
	for _, b := range batchesOf(sess) {
		if b.ID == batch {
			return s.effects[e](s, ctx, effectRun{SessionID: sessionID, Batch: b.ID, Event: b.Event, From: b.From, To: b.To, Effect: e, At: b.At, ResumedFrom: b.ResumedFrom})
		}
	}
	return fmt.Errorf("no batch %s recorded on session %d", batch, sessionID)
}
