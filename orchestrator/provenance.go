package orchestrator

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/roster"
)

// AdminKey is the configured admin key (ZIMMER_ADMIN_USER, trimmed, default tadasant).
func (s *Service) AdminKey() string { return s.admin }

// Admin resolves the human the web UI speaks for against the roster as it is now. ok is false
// when the admin key names no row: web-UI capture must then record nothing.
func (s *Service) Admin(ctx context.Context) (roster.User, bool, error) {
	users, err := s.store.Users(ctx)
	if err != nil {
		return roster.User{}, false, fmt.Errorf("resolve admin %q: %w", s.admin, err)
	}
	u, ok := roster.Admin(users, s.admin)
	return u, ok, nil
}
