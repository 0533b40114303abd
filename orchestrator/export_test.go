package orchestrator

import (
	"context"

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
