package graph

import (
	"context"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// FleetSessions lists up to limit sessions outside the trash and frozen categories, most
// recently changed first; a non-empty scope keeps only sessions whose custom_metadata mentions it.
func (s *Store) FleetSessions(ctx context.Context, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "fleet_sessions", queries.FleetSessions, map[string]any{"scope": scope, "limit": limit})
}
