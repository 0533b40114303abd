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

// SessionProvenance reads a session and its provenance in one read
// transaction, so the counts, the tree and the roster describe the same moment.
func (s *Store) SessionProvenance(ctx context.Context, id int64) (Provenance, error) {
	out, err := read(ctx, s, "session_provenance", func(tx txn) (Provenance, error) {
		sess, err := getSession(tx, id)
		if err != nil {
			return Provenance{}, err
		}
		h, err := lineage.Walk(lineageSource{tx}, sess.ID)
		if err != nil {
			return Provenance{}, err
		}
		// Gathering over the hierarchy's ids is what makes uncle edges widen the record both
		// ways: each end's walk reaches the other's roots.
		msgs, err := humanMessages(tx, h.SessionIDs())
		if err != nil {
			return Provenance{}, err
		}
		users, err := listUsers(tx)
		return Provenance{Session: sess, Hierarchy: h, Messages: msgs, Users: users}, err
	})
	if err != nil {
		return Provenance{}, fmt.Errorf("provenance of session %d: %w", id, err)
	}
	return out, nil
}
