package graph

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// SessionForSlackThread finds the live session bound to a Slack channel and thread (see
// session.SlackChannelKey): one bound to that exact thread first, else one bound to the whole
// channel. ErrNotFound when no session listens there.
func (s *Store) SessionForSlackThread(ctx context.Context, channel, threadTS string) (*session.Session, error) {
	out, err := read(ctx, s, "slack_thread_session", func(tx txn) (*session.Session, error) {
		rec, err := tx.single("slack_thread_session", queries.SlackThreadSession,
			map[string]any{"channel": channel, "thread_ts": nullable(threadTS)})
		if err != nil {
			return nil, err
		}
		return recordSession(rec, "s")
	})
	if err != nil {
		return nil, fmt.Errorf("session for Slack thread %s/%s: %w", channel, threadTS, err)
	}
	return out, nil
}
