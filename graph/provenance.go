package graph

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// Provenance is what every rendering of a session's provenance reads: the session, its
// hierarchy, every human message said anywhere in it, and the roster that names the authors.
type Provenance struct {
	Session   *session.Session
	Hierarchy *lineage.Hierarchy
	Messages  []roster.Message // chronological
	Users     []roster.User
}

// SessionProvenance reads a session and its provenance in one statement. Gathering messages
// over the hierarchy's sessions is what makes uncle edges widen the record both ways: each end's
// walk reaches the other's roots.
func (s *Store) SessionProvenance(ctx context.Context, id int64) (Provenance, error) {
	v, err := s.SessionView(ctx, id, 0)
	return v.Provenance, err
}

// SessionView is a session's provenance with what get_session shows beside it, read by the
// same statement: the head of its pending queue, its category and its status summary.
type SessionView struct {
	Provenance
	Pending       []*session.Message // the first pending messages, by position
	PendingTotal  int
	Category      *session.Category // nil without a category, or when the category is gone
	StatusSummary StatusSummary
}

// SessionView reads a session's provenance, the first queuePreview pending messages of its
// queue, its category and its status summary in one statement: one round trip, one moment.
func (s *Store) SessionView(ctx context.Context, id int64, queuePreview int) (SessionView, error) {
	v, err := s.view(ctx, id, queuePreview)
	if err != nil {
		return SessionView{}, fmt.Errorf("provenance of session %d: %w", id, err)
	}
	return v, nil
}
