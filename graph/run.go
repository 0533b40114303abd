package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// StaleRunningSessions lists one page of running sessions whose record has not changed since
// before; a non-empty scope keeps only sessions whose custom_metadata mentions it.
func (s *Store) StaleRunningSessions(ctx context.Context, before time.Time, scope string, skip, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "stale_running_sessions", queries.StaleRunningSessions,
		map[string]any{"before": before.UTC(), "scope": scope, "skip": skip, "limit": limit})
}

// StalePendingDispatches lists waiting or running sessions holding a pending dispatch, unchanged
// since before; scope as for StaleRunningSessions.
func (s *Store) StalePendingDispatches(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "stale_pending_dispatches", queries.StalePendingDispatches,
		map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// StalePendingEffects lists sessions holding transition effects not all run, unchanged since
// before; scope as for StaleRunningSessions.
func (s *Store) StalePendingEffects(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "stale_pending_effects", queries.StalePendingEffects,
		map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// IdleSessionsWithQueuedMessages lists idle, unpaused sessions with a pending queued message,
// unchanged since before; scope as for StaleRunningSessions.
func (s *Store) IdleSessionsWithQueuedMessages(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "idle_sessions_with_queued_messages", queries.IdleSessionsWithQueuedMessages,
		map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// RecoveryParkedSessions lists sessions parked by a recovery path (paused_by = recovery) that
// rest in needs_input or waiting; scope as for StaleRunningSessions.
func (s *Store) RecoveryParkedSessions(ctx context.Context, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "recovery_parked_sessions", queries.RecoveryParkedSessions, map[string]any{"scope": scope, "limit": limit})
}

func (s *Store) sessionsBy(ctx context.Context, name, cypher string, params map[string]any) ([]*session.Session, error) {
	out, err := read(ctx, s, name, func(tx txn) ([]*session.Session, error) {
		recs, err := tx.collect(name, cypher, params)
		if err != nil {
			return nil, err
		}
		list := make([]*session.Session, 0, len(recs))
		for _, rec := range recs {
			sess, err := tx.session(rec, "s")
			if err != nil {
				return nil, err
			}
			list = append(list, sess)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
