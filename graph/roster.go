package graph

import (
	"context"
	"fmt"
	"slices"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/roster"
)

// SeedUsers inserts the roster's seed rows that are missing; existing rows are left alone.
func (s *Store) SeedUsers(ctx context.Context) error {
	rows := make([]map[string]any, len(roster.Seeds))
	for i, u := range roster.Seeds {
		rows[i] = map[string]any{"key": u.Key, "display_name": u.DisplayName, "email": u.Email, "notes": u.Notes}
	}
	_, err := write(ctx, s, "seed_users", func(tx txn) (struct{}, error) {
		_, err := tx.collect("seed_users", queries.SeedUsers, map[string]any{"users": rows, "at": s.now().UTC()})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("seed users: %w", err)
	}
	return nil
}

// Users returns the whole roster, by key.
func (s *Store) Users(ctx context.Context) ([]roster.User, error) {
	out, err := read(ctx, s, "list_users", func(tx txn) ([]roster.User, error) { return listUsers(tx) })
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

func listUsers(tx txn) ([]roster.User, error) {
	recs, err := tx.collect("list_users", queries.ListUsers, nil)
	if err != nil {
		return nil, err
	}
	users := make([]roster.User, 0, len(recs))
	for _, r := range recs {
		users = append(users, userFrom(r.AsMap()))
	}
	return users, nil
}

func userFrom(m map[string]any) roster.User {
	ids, _ := m["slack_user_ids"].([]any)
	u := roster.User{Key: asString(m["key"]), DisplayName: asString(m["display_name"]), Email: asString(m["email"]),
		Notes: asString(m["notes"]), CreatedAt: timeOf(m["created_at"]), UpdatedAt: timeOf(m["updated_at"]), SlackUserIDs: []string{}}
	for _, id := range ids {
		u.SlackUserIDs = append(u.SlackUserIDs, asString(id))
	}
	return u
}

// UserValidationError lists why a roster row was refused.
type UserValidationError struct{ Messages []string }

func (e *UserValidationError) Error() string { return fmt.Sprintf("invalid user: %v", e.Messages) }

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *UserValidationError) Unwrap() error { return ErrInvalid }

// SaveUser creates or replaces a roster row after checking it against the whole roster under
// the roster lock: a unique email, and every Slack id belonging to no other human.
func (s *Store) SaveUser(ctx context.Context, u roster.User) error {
	u = u.Normalize()
	if bad := u.Validate(); len(bad) > 0 {
		return &UserValidationError{bad}
	}
	_, err := write(ctx, s, "save_user", func(tx txn) (struct{}, error) {
		if _, err := tx.single("lock_roster", queries.LockRoster, nil); err != nil {
			return struct{}{}, err
		}
		others, err := listUsers(tx)
		if err != nil {
			return struct{}{}, err
		}
		var bad []string
		for _, o := range others {
			if o.Key == u.Key {
				continue
			}
			if u.Email != "" && o.Email == u.Email {
				bad = append(bad, "Email has already been taken by "+o.Key)
			}
			for _, id := range u.SlackUserIDs {
				if slices.Contains(o.SlackUserIDs, id) {
					bad = append(bad, fmt.Sprintf("Slack user id %s already belongs to %s", id, o.Key))
				}
			}
		}
		if len(bad) > 0 {
			return struct{}{}, &UserValidationError{bad}
		}
		var email any
		if u.Email != "" {
			email = u.Email
		}
		_, err = tx.single("save_user", queries.SaveUser, map[string]any{"key": u.Key, "display_name": u.DisplayName,
			"email": email, "slack_user_ids": u.SlackUserIDs, "notes": u.Notes, "at": s.now().UTC()})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("save user %q: %w", u.Key, err)
	}
	return nil
}

// DeleteUser removes a roster row; ErrNotFound when there is none. Messages the human authored
// keep their author key and still render.
func (s *Store) DeleteUser(ctx context.Context, key string) error {
	n, err := write(ctx, s, "delete_user", func(tx txn) (int64, error) {
		rec, err := tx.single("delete_user", queries.DeleteUser, map[string]any{"key": key})
		if err != nil {
			return 0, err
		}
		n, _, err := neo4j.GetRecordValue[int64](rec, "deleted")
		return n, err
	})
	if err == nil && n == 0 {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete user %q: %w", key, err)
	}
	return nil
}

// HumanMessages returns every message said to any of the sessions, chronological.
func (s *Store) HumanMessages(ctx context.Context, sessionIDs []int64) ([]roster.Message, error) {
	out, err := read(ctx, s, "human_messages", func(tx txn) ([]roster.Message, error) {
		return humanMessages(tx, sessionIDs, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("human messages of %d sessions: %w", len(sessionIDs), err)
	}
	return out, nil
}

// humanMessages reads the messages said to the sessions; asOf is a time.Time (only those
// recorded by then) or nil (all).
func humanMessages(tx txn, sessionIDs []int64, asOf any) ([]roster.Message, error) {
	recs, err := tx.collect("human_messages", queries.HumanMessages, map[string]any{"session_ids": sessionIDs, "as_of": asOf})
	if err != nil {
		return nil, err
	}
	msgs := make([]roster.Message, 0, len(recs))
	for _, r := range recs {
		msgs = append(msgs, messageFrom(r.AsMap()))
	}
	return msgs, nil
}

func messageFrom(m map[string]any) roster.Message {
	return roster.Message{ID: asInt(m["id"]), SessionID: asInt(m["session_id"]),
		Author: asString(m["author"]), Channel: asString(m["channel"]), Content: asString(m["content"]),
		OccurredAt: timeOf(m["occurred_at"]), EntryPoint: asString(m["entry_point"]), SlackUserID: asString(m["slack_user_id"]),
		SlackChannel: asString(m["slack_channel"]), SlackPermalink: asString(m["slack_permalink"])}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
