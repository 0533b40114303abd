package orchestrator

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/pricing"
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
// in one statement: the first pending messages of its queue, how many are pending, its
// category (nil without one, or when it is gone) and its stored status summary, which
// StatusSummaryOf renders for the readers that show it.
type SessionView struct {
	Record       provenance.Record
	Pending      []*session.Message
	PendingTotal int
	Category     *session.Category
	summary      graph.StatusSummary
}

// SessionView reads a session's provenance record, its first queuePreview pending messages, its
// category and its status summary in one round trip.
func (s *Service) SessionView(ctx context.Context, id int64, queuePreview int) (SessionView, error) {
	v, err := s.store.SessionView(ctx, id, queuePreview)
	if err != nil {
		return SessionView{}, err
	}
	s.obs.ObserveWalk(len(v.Hierarchy.Nodes), v.Hierarchy.Truncated)
	return SessionView{Record: provenance.Gather(v.Session, v.Hierarchy, v.Messages, v.Users, s.admin),
		Pending: v.Pending, PendingTotal: v.PendingTotal, Category: v.Category, summary: v.StatusSummary}, nil
}

// StatusSummaryOf is the view's status summary as the surfaces show it. It counts the transcript
// entries written since the summary was generated, a file read, so only the readers that show
// the summary (GET /sessions/:id, get_session) pay for it, not every turn's prompt or page.
func (s *Service) StatusSummaryOf(v SessionView) (StatusSummaryView, error) {
	return s.statusSummaryView(v.Record.Session.ID, v.summary)
}

// PromptBlocks is what the session runner appends after <session-notes> on the initial spawn
// and every follow-up: pointer or full blocks as the provenance_via_mcp_enabled setting says.
func (s *Service) PromptBlocks(ctx context.Context, sessionID int64) (string, error) {
	blocks, err := s.promptBlocks(ctx, sessionID)
	return provenance.JoinBlocks(blocks), err
}

func (s *Service) promptBlocks(ctx context.Context, sessionID int64) ([]provenance.Block, error) {
	app, err := s.store.AppSettings(ctx)
	if err != nil {
		return nil, fmt.Errorf("prompt blocks of session %d: %w", sessionID, err)
	}
	rec, err := s.Provenance(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("prompt blocks of session %d: %w", sessionID, err)
	}
	return provenance.Blocks(rec, provenance.ModeFor(app.ProvenanceViaMCPEnabled), s.now()), nil
}

// TurnPrompt is the prompt a turn of sess sends its agent: task (what the turn's job carries)
// with the session's goal and notes and the provenance blocks, as provenance.Prompt assembles
// them. The blocks are context, not the task: a turn whose blocks cannot be read goes without.
// The blocks sent are tallied on the session, which is what the Costs page prices them from.
func (s *Service) TurnPrompt(ctx context.Context, sess *session.Session, task string) string {
	injected, err := s.promptBlocks(ctx, sess.ID)
	if err != nil {
		s.log.Warn("prompt blocks left out", "session_id", sess.ID, "err", err)
	}
	s.tallyInjected(ctx, sess, injected)
	blocks := provenance.JoinBlocks(injected)
	if mcp := UnavailableMCPBlock(sess); mcp != "" {
		blocks = strings.TrimSpace(blocks + "\n\n" + mcp)
	}
	return provenance.Prompt(task, deref(sess.Goal, ""), deref(sess.SessionNotes, ""), blocks)
}

// tallyInjected records the turn's injected blocks on its session: bytes, and tokens as
// pricing.EstimateTokens estimates them, under the model the turn runs. A tally that cannot be
// written is logged; it never holds a turn back.
func (s *Service) tallyInjected(ctx context.Context, sess *session.Session, blocks []provenance.Block) {
	rows := make([]graph.InjectedBlock, len(blocks))
	for i, b := range blocks {
		rows[i] = graph.InjectedBlock{Block: b.Name, Bytes: int64(len(b.Text)), Tokens: pricing.EstimateTokens(len(b.Text))}
	}
	model := cmp.Or(sess.Model(), s.Catalog().DefaultModel(sess.AgentRuntime))
	if err := s.store.RecordInjectedBlocks(ctx, sess.ID, model, s.now(), rows); err != nil {
		s.log.Warn("injected blocks not tallied", "session_id", sess.ID, "err", err)
	}
}

// AppSettings reads the deployment's settings.
func (s *Service) AppSettings(ctx context.Context) (settings.App, error) {
	return s.store.AppSettings(ctx)
}

// UpdateAppSettings changes the settings given and returns them as they now are.
func (s *Service) UpdateAppSettings(ctx context.Context, c settings.Change) (settings.App, error) {
	return s.store.UpdateAppSettings(ctx, c)
}
