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
	p, err := s.provenance(ctx, id)
	if err != nil {
		return Provenance{}, fmt.Errorf("provenance of session %d: %w", id, err)
	}
	return p, nil
}
