package orchestrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
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

// Provenance gathers a session's record: its hierarchy, every human message said
// anywhere in it marked here or elsewhere, the roster's names and notes for the authors, and
// the channels capture cannot see. Every surface renders from this one record.
func (s *Service) Provenance(ctx context.Context, id int64) (provenance.Record, error) {
	v, err := s.SessionView(ctx, id, 0)
	return v.Record, err
}

// SessionView is a session's provenance record with what get_session shows beside it, all read
// in one statement: the first pending messages of its queue, how many are pending, the name
// of its category (nil without one, or when it is gone) and its status summary.
type SessionView struct {
	Record        provenance.Record
	Pending       []*session.Message
	PendingTotal  int
	CategoryName  *string
	StatusSummary StatusSummaryView
}

// SessionView reads a session's provenance record, its first queuePreview pending messages, its
// category's name and its status summary in one round trip.
func (s *Service) SessionView(ctx context.Context, id int64, queuePreview int) (SessionView, error) {
	v, err := s.store.SessionView(ctx, id, queuePreview)
	if err != nil {
		return SessionView{}, err
	}
	s.obs.ObserveWalk(len(v.Hierarchy.Nodes), v.Hierarchy.Truncated)
	summary, err := s.statusSummaryView(v.Session.ID, v.StatusSummary)
	if err != nil {
		return SessionView{}, err
	}
	return SessionView{Record: provenance.Gather(v.Session, v.Hierarchy, v.Messages, v.Users, s.admin),
		Pending: v.Pending, PendingTotal: v.PendingTotal, CategoryName: v.CategoryName, StatusSummary: summary}, nil
}

// PromptBlocks is what the session runner appends after <session-notes> on the initial spawn
// and every follow-up: pointer or full blocks as the provenance_via_mcp_enabled setting says.
func (s *Service) PromptBlocks(ctx context.Context, sessionID int64) (string, error) {
	app, err := s.store.AppSettings(ctx)
	if err != nil {
		return "", fmt.Errorf("prompt blocks of session %d: %w", sessionID, err)
	}
	rec, err := s.Provenance(ctx, sessionID)
	if err != nil {
		return "", fmt.Errorf("prompt blocks of session %d: %w", sessionID, err)
	}
	return provenance.PromptBlocks(rec, provenance.ModeFor(app.ProvenanceViaMCPEnabled), s.now()), nil
}

// TurnPrompt is the prompt a turn of sess sends its agent: task (what the turn's job carries)
// with the session's goal and notes and the provenance blocks, as provenance.Prompt assembles
// them. The blocks are context, not the task: a turn whose blocks cannot be read goes without.
func (s *Service) TurnPrompt(ctx context.Context, sess *session.Session, task string) string {
	blocks, err := s.PromptBlocks(ctx, sess.ID)
	if err != nil {
		s.log.Warn("prompt blocks left out", "session_id", sess.ID, "err", err)
	}
	if mcp := UnavailableMCPBlock(sess); mcp != "" {
		blocks = strings.TrimSpace(blocks + "\n\n" + mcp)
	}
	return provenance.Prompt(task, deref(sess.Goal, ""), deref(sess.SessionNotes, ""), blocks)
}

// AppSettings reads the deployment's settings.
func (s *Service) AppSettings(ctx context.Context) (settings.App, error) {
	return s.store.AppSettings(ctx)
}

// UpdateAppSettings changes the settings given and returns them as they now are.
func (s *Service) UpdateAppSettings(ctx context.Context, c settings.Change) (settings.App, error) {
	return s.store.UpdateAppSettings(ctx, c)
}
