package orchestrator

import (
	"context"
	"errors"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/roster"
)

// The roster is the authority on who counts as a human, so it is edited only from the
// supervisor pages behind the web UI's HTTP Basic realm; no REST route or MCP tool calls these.

// Users returns the whole roster, by key.
func (s *Service) Users(ctx context.Context) ([]roster.User, error) {
	return s.store.Users(ctx)
}

// SaveUser creates or replaces a roster row; a refused row is a ValidationError listing why
// (key format, blank display name, an email or Slack id that belongs to someone else).
func (s *Service) SaveUser(ctx context.Context, u roster.User) error {
	err := s.store.SaveUser(ctx, u)
	var uv *graph.UserValidationError
	if errors.As(err, &uv) {
		return invalid("Validation failed", uv.Messages...)
	}
	return err
}

// DeleteUser removes a roster row (ErrNotFound when none). Messages the human authored keep
// their author key and still render; they simply stop naming a person.
func (s *Service) DeleteUser(ctx context.Context, key string) error {
	return s.store.DeleteUser(ctx, key)
}
