package rest

import (
	"context"
	"slices"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// sessionJSON is the one shape of a "session" key on every response (the original session_json).
type sessionJSON struct {
	ID                       int64          `json:"id"`
	Slug                     *string        `json:"slug"`
	Title                    string         `json:"title"`
	Status                   session.Status `json:"status"`
	AgentRuntime             string         `json:"agent_runtime"`
	Prompt                   *string        `json:"prompt"`
	GitRoot                  string         `json:"git_root"`
	Branch                   string         `json:"branch"`
	Subdirectory             *string        `json:"subdirectory"`
	ExecutionProvider        string         `json:"execution_provider"`
	Goal                     *string        `json:"goal"`
	MCPServers               []string       `json:"mcp_servers"`
	AllMCPServers            []string       `json:"all_mcp_servers"`
	InjectedMCPServers       []string       `json:"injected_mcp_servers"`
	CatalogSkills            []string       `json:"catalog_skills"`
	CatalogHooks             []string       `json:"catalog_hooks"`
	CatalogPlugins           []string       `json:"catalog_plugins"`
	Config                   map[string]any `json:"config"`
	Metadata                 map[string]any `json:"metadata"`
	CustomMetadata           map[string]any `json:"custom_metadata"`
	IsAutonomous             bool           `json:"is_autonomous"`
	HeartbeatEnabled         bool           `json:"heartbeat_enabled"`
	HeartbeatIntervalSeconds int64          `json:"heartbeat_interval_seconds"`
	AutoCompactWindow        int64          `json:"auto_compact_window"`
	Genesis                  string         `json:"genesis"`
	SchedulingClass          *session.Class `json:"scheduling_class"`
	PriorityClass            session.Class  `json:"priority_class"`
	Precedence               int64          `json:"precedence"`
	CategoryID               *int64         `json:"category_id"`
	Category                 any            `json:"category"`
	SessionID                *string        `json:"session_id"`
	JobID                    *string        `json:"job_id"`
	RunningJobID             *string        `json:"running_job_id"`
	ArchivedAt               *time.Time     `json:"archived_at"`
	TrashAfter               *time.Time     `json:"trash_after"`
	CreatedAt                time.Time      `json:"created_at"`
	UpdatedAt                time.Time      `json:"updated_at"`
	SessionNotes             *string        `json:"session_notes"`
	SessionNotesUpdatedAt    *time.Time     `json:"session_notes_updated_at"`
	Favorited                bool           `json:"favorited"`
	Visibility               string         `json:"visibility"`
	ParentSessionID          *int64         `json:"parent_session_id"`
	IdempotencyKey           *string        `json:"idempotency_key"`
	// Transcript is set only when GET /sessions/:id is asked include_transcript=true; an
	// interface, so that a session without one still shows [] rather than no key.
	Transcript any `json:"transcript,omitempty"`
}

// renderSession is a session as every response shows it, its category resolved (null when it has
// none).
func (h *Handler) renderSession(ctx context.Context, s *session.Session) sessionJSON {
	return h.renderSessions(ctx, []*session.Session{s})[0]
}

// renderSessions renders sessions with their categories, reading the (short) category list once.
func (h *Handler) renderSessions(ctx context.Context, list []*session.Session) []sessionJSON {
	var byID map[int64]session.Category
	if slices.ContainsFunc(list, func(s *session.Session) bool { return s.CategoryID != nil }) {
		cats, err := h.ops.Categories(ctx)
		if err != nil {
			// The sessions themselves were read; a missing category label is not worth failing them.
			h.log.Warn("read categories for sessions' category", "err", err)
		}
		byID = make(map[int64]session.Category, len(cats))
		for _, c := range cats {
			byID[c.ID] = c
		}
	}
	out := make([]sessionJSON, 0, len(list))
	for _, s := range list {
		var c *session.Category
		if s.CategoryID != nil {
			if cat, ok := byID[*s.CategoryID]; ok {
				c = &cat
			}
		}
		out = append(out, renderSessionIn(s, c))
	}
	return out
}

// renderSessionIn renders a session with its category as read (nil: none, or gone); a session
// read with its category needs no category list.
func renderSessionIn(s *session.Session, c *session.Category) sessionJSON {
	out := sessionFields(s)
	if c != nil {
		out.Category = categoryRefJSON{ID: c.ID, Name: c.Name, Position: c.Position, IsFrozen: c.IsFrozen}
	}
	return out
}

// categoryRefJSON is a session's `category`.
type categoryRefJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Position int64  `json:"position"`
	IsFrozen bool   `json:"is_frozen"`
}

// sessionFields is the session's own fields; Category is left for renderSessions.
func sessionFields(s *session.Session) sessionJSON {
	return sessionJSON{
		ID: s.ID, Slug: s.Slug, Title: s.DisplayTitle(), Status: s.Status, AgentRuntime: s.AgentRuntime,
		Prompt: s.Prompt, GitRoot: session.RedactCredentials(s.GitRoot), Branch: s.Branch, Subdirectory: s.Subdirectory,
		ExecutionProvider: s.ExecutionProvider, Goal: s.Goal, MCPServers: s.MCPServers,
		AllMCPServers: s.AllMCPServers(), InjectedMCPServers: s.InjectedMCPServers(),
		CatalogSkills: s.CatalogSkills, CatalogHooks: s.CatalogHooks, CatalogPlugins: s.CatalogPlugins,
		Config: s.Config, Metadata: s.Metadata, CustomMetadata: s.CustomMetadata, IsAutonomous: s.IsAutonomous,
		HeartbeatEnabled: s.HeartbeatEnabled, HeartbeatIntervalSeconds: s.HeartbeatInterval,
		AutoCompactWindow: s.AutoCompactWindow, Genesis: string(s.Genesis), SchedulingClass: s.SchedulingClass,
		PriorityClass: s.PriorityClass(), Precedence: s.Precedence, CategoryID: s.CategoryID,
		SessionID: s.RuntimeSessionID, JobID: s.JobID, RunningJobID: s.RunningJobID, ArchivedAt: s.ArchivedAt,
		TrashAfter: s.TrashAfter, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, SessionNotes: s.SessionNotes,
		SessionNotesUpdatedAt: s.SessionNotesUpdatedAt, Favorited: s.Favorited, Visibility: s.Visibility,
		ParentSessionID: s.ParentSessionID, IdempotencyKey: s.IdempotencyKey,
	}
}
