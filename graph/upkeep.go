package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// TrashDue lists up to limit archived sessions whose trash_after is before now, oldest first;
// scope as for StaleRunningSessions.
func (s *Store) TrashDue(ctx context.Context, now time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "trash_due", queries.TrashDue, map[string]any{"now": now.UTC(), "scope": scope, "limit": limit})
}

// DeleteSessionIf hard-deletes a session as DeleteSession does, but only when check, shown the
// session under its lock, returns nil; check's error is returned and nothing is deleted.
func (s *Store) DeleteSessionIf(ctx context.Context, id int64, check func(*session.Session) error) error {
	_, err := write(ctx, s, "delete_session_if", func(tx txn) (bool, error) {
		found, err := lockSession(tx, id)
		if err != nil {
			return false, err
		}
		if err := check(found); err != nil {
			return false, err
		}
		_, err = tx.single("delete_session", queries.DeleteSession, map[string]any{"id": id})
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("delete session %d: %w", id, err)
	}
	return nil
}

// HeartbeatsDue lists up to limit sessions whose heartbeat is due at now; scope as for
// StaleRunningSessions.
func (s *Store) HeartbeatsDue(ctx context.Context, now time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "heartbeats_due", queries.HeartbeatsDue, map[string]any{"now": now.UTC(), "scope": scope, "limit": limit})
}
