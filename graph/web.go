package graph

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/queries"
)

// ChangeVersion is a fingerprint of the sessions, edges, human messages, queues and timelines:
// it differs whenever any of them changed (a deletion included), so a reader that keeps the last
// one knows when to look again without reading what changed.
func (s *Store) ChangeVersion(ctx context.Context) (string, error) {
	return read(ctx, s, "web_change_version", func(tx txn) (string, error) {
		rec, err := tx.single("web_change_version", queries.WebChangeVersion, nil)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%v", rec.Values), nil
	})
}
