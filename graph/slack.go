package graph

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

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
		return tx.session(rec, "s")
	})
	if err != nil {
		return nil, fmt.Errorf("session for Slack thread %s/%s: %w", channel, threadTS, err)
	}
	return out, nil
}

// SlackClaim is a claim on one Slack event id; Release gives it back.
type SlackClaim struct {
	EventID, token string
}

// ClaimSlackEvent marks a Slack event id as seen, durably, so a retried or replayed event is
// delivered once even across restarts. ok is false when the id was seen within ttl. Marks older
// than ttl are forgotten on the way (a few per call), which keeps the set bounded.
func (s *Store) ClaimSlackEvent(ctx context.Context, eventID string, ttl time.Duration) (SlackClaim, bool, error) {
	c := SlackClaim{EventID: eventID, token: rand.Text()} // drawn outside the retried transaction
	now := s.now().UTC()
	ok, err := write(ctx, s, "claim_slack_event", func(tx txn) (bool, error) {
		if _, err := tx.collect("forget_slack_events", queries.ForgetSlackEvents, map[string]any{"before": now.Add(-ttl)}); err != nil {
			return false, err
		}
		rec, err := tx.single("claim_slack_event", queries.ClaimSlackEvent,
			map[string]any{"event_id": eventID, "token": c.token, "at": now})
		if err != nil {
			return false, err
		}
		return asBool(rec.Values[0]), nil
	})
	if err != nil {
		return SlackClaim{}, false, fmt.Errorf("claim Slack event %s: %w", eventID, err)
	}
	return c, ok, nil
}

// ReleaseSlackEvent removes the mark c made, so the event can be delivered again.
func (s *Store) ReleaseSlackEvent(ctx context.Context, c SlackClaim) error {
	_, err := write(ctx, s, "release_slack_event", func(tx txn) (struct{}, error) {
		_, err := tx.collect("release_slack_event", queries.ReleaseSlackEvent, map[string]any{"event_id": c.EventID, "token": c.token})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("release Slack event %s: %w", c.EventID, err)
	}
	return nil
}
