package orchestrator

import "context"

// EffectRun and the trigger effect handlers, for the external tests to call as the effects
// framework does.
type EffectRun = effectRun

func (s *Service) FireAOEventTriggers(ctx context.Context, r EffectRun) error {
	return s.fireAOEventTriggers(ctx, r)
}

func (s *Service) CancelOneTimeWakesEffect(ctx context.Context, r EffectRun) error {
	return s.cancelOneTimeWakes(ctx, r)
}

func (s *Service) RemoveWatchersEffect(ctx context.Context, r EffectRun) error {
	return s.removeWatchers(ctx, r)
}
