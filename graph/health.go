package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// SessionsByStatus counts the sessions in every status (zero included).
func (s *Store) SessionsByStatus(ctx context.Context) (map[session.Status]int64, error) {
	names := make([]string, len(session.Statuses))
	for i, st := range session.Statuses {
		names[i] = string(st)
	}
	out, err := read(ctx, s, "sessions_by_status", func(tx txn) (map[session.Status]int64, error) {
		recs, err := tx.collect("sessions_by_status", queries.SessionsByStatus, map[string]any{"statuses": names})
		if err != nil {
			return nil, err
		}
		counts := make(map[session.Status]int64, len(recs))
		for _, rec := range recs {
			m := rec.AsMap()
			counts[session.Status(asString(m["status"]))] = asInt(m["sessions"])
		}
		return counts, nil
	})
	if err != nil {
		return nil, fmt.Errorf("count sessions by status: %w", err)
	}
	return out, nil
}

// RecentFailedSessions lists up to limit failed sessions changed since since, outside frozen
// categories, newest change first; a non-empty scope keeps only sessions whose custom_metadata
// mentions it.
func (s *Store) RecentFailedSessions(ctx context.Context, since time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "recent_failed_sessions", queries.RecentFailedSessions, map[string]any{"since": since.UTC(), "scope": scope, "limit": limit})
}

// UntouchedSessions lists up to limit sessions outside the trash unchanged since before,
// longest untouched first; scope as for RecentFailedSessions.
func (s *Store) UntouchedSessions(ctx context.Context, before time.Time, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "untouched_sessions", queries.UntouchedSessions, map[string]any{"before": before.UTC(), "scope": scope, "limit": limit})
}

// LeftoverProcesses lists up to limit sessions that are not running but still record an agent
// process on host; scope as for RecentFailedSessions.
func (s *Store) LeftoverProcesses(ctx context.Context, host, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "leftover_processes", queries.LeftoverProcesses, map[string]any{"host": host, "scope": scope, "limit": limit})
}
