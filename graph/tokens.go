package graph

import (
	"context"
	"errors"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// IssueSessionToken stores digest as the session's capability token, replacing the one it had.
// A missing session is ErrNotFound.
func (s *Store) IssueSessionToken(ctx context.Context, id int64, digest string) error {
	_, err := write(ctx, s, "issue_session_token", func(tx txn) (struct{}, error) {
		_, err := tx.single("issue_session_token", queries.IssueSessionToken, map[string]any{"id": id, "digest": digest, "at": s.now().UTC()})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("issue a token for session %d: %w", id, err)
	}
	return nil
}

// SessionByToken is the session a token digest authenticates as; ErrNotFound for an unknown or
// revoked token, or one whose session is archived.
func (s *Store) SessionByToken(ctx context.Context, digest string) (int64, error) {
	id, err := read(ctx, s, "session_by_token", func(tx txn) (int64, error) {
		rec, err := tx.single("session_by_token", queries.SessionByToken, map[string]any{"digest": digest, "archived": string(session.StatusArchived)})
		if err != nil {
			return 0, err
		}
		id, _, err := neo4j.GetRecordValue[int64](rec, "id")
		return id, err
	})
	if err != nil {
		return 0, fmt.Errorf("authenticate a session token: %w", err) // never the token itself
	}
	return id, nil
}

// RevokeSessionToken removes the session's token, if it has one.
func (s *Store) RevokeSessionToken(ctx context.Context, id int64) error {
	_, err := write(ctx, s, "revoke_session_token", func(tx txn) (struct{}, error) {
		_, err := tx.single("revoke_session_token", queries.RevokeSessionToken, map[string]any{"id": id})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("revoke the token of session %d: %w", id, err)
	}
	return nil
}

// SpawnedBy reports whether id descends from ancestor over spawn edges, at any depth.
func (s *Store) SpawnedBy(ctx context.Context, ancestor, id int64) (bool, error) {
	ok, err := read(ctx, s, "spawned_by", func(tx txn) (bool, error) {
		rec, err := tx.single("spawned_by", queries.SpawnedBy, map[string]any{"ancestor": ancestor, "id": id})
		if errors.Is(err, ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		v, _, err := neo4j.GetRecordValue[bool](rec, "spawned")
		return v, err
	})
	if err != nil {
		return false, fmt.Errorf("is session %d spawned by %d: %w", id, ancestor, err)
	}
	return ok, nil
}
