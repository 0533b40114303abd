package orchestrator

import (
	"context"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// The capture boundaries. A human message is recorded only here, where the actor was
// established by the transport (the web UI's HTTP Basic realm, Slack's signed events), and never
// from the text of a message. Every other path — REST, MCP, jobs — records nothing, because
// the fleet-wide API key establishes a caller, not a person. The web operations take no acting
// session at all: a human is never an uncle, structurally.

// Entry points (provenance.entry_point) the boundaries record.
const (
	EntryWebNewSession     = "web_ui.new_session"
	EntryWebQuickPrompt    = "web_ui.quick_prompt"
	EntryWebFollowUp       = "web_ui.follow_up"
	EntryWebFollowUpQueued = "web_ui.follow_up_queued"
	EntryWebEnqueued       = "web_ui.enqueued_message"
	EntrySlackChannel      = "slack.channel_message"
	EntrySlackDM           = "slack.dm"
)

// RouterRoot is the agent root a quick prompt starts.
const RouterRoot = "zimmer-router"

// delivered is told that a delivery landed on a session (queued says it waits in the queue)
// before any agent job carries it, so a record written here is visible to that job's prompt.
type delivered func(ctx context.Context, sessionID int64, queued bool)

// words is one human utterance at a boundary. A zero author records nothing.
type words struct {
	author, channel, content string
	entry                    func(queued bool) string
	slack                    SlackOrigin
}

// SlackOrigin is where a Slack message was said; At is Slack's own timestamp.
type SlackOrigin struct {
	UserID, Channel, Permalink string
	At                         time.Time
}

// captureHuman records w as said to the session. It is observational and best-effort: blank
// content or no author records nothing, content is clipped to roster.MaxContent, and a failure
// is logged and swallowed so the delivery it describes stands.
func (s *Service) captureHuman(ctx context.Context, sessionID int64, w words, queued bool) {
	content, ok := roster.ClipContent(w.content)
	if !ok || w.author == "" {
		return
	}
	at := w.slack.At
	if at.IsZero() {
		at = s.now()
	}
	entry := w.entry(queued)
	_, err := s.store.RecordHumanMessage(ctx, roster.Message{SessionID: sessionID, Author: w.author, Channel: w.channel,
		Content: content, OccurredAt: at.UTC(), EntryPoint: entry, SlackUserID: w.slack.UserID,
		SlackChannel: w.slack.Channel, SlackPermalink: w.slack.Permalink})
	if err != nil {
		s.log.Warn("human message not recorded; the delivery stands", "session_id", sessionID, "entry_point", entry, "err", err)
		return
	}
	s.obs.ObserveHumanMessage(w.channel)
}

// capturing is the hook that records w once its delivery lands.
func (s *Service) capturing(w words) delivered {
	return func(ctx context.Context, sessionID int64, queued bool) { s.captureHuman(ctx, sessionID, w, queued) }
}

// webWords attributes content typed into the web UI to the admin. When the admin key names no
// roster row (or the roster cannot be read) the author is blank and nothing will be recorded:
// guessing would launder a machine's words into a human's.
func (s *Service) webWords(ctx context.Context, content string, entry func(bool) string) words {
	w := words{channel: roster.ChannelWebUI, content: content, entry: entry}
	admin, ok, err := s.Admin(ctx)
	switch {
	case err != nil:
		s.log.Warn("web UI message will not be recorded: the roster could not be read", "err", err)
	case !ok:
		s.log.Warn("web UI message will not be recorded: the admin key names no roster row", "admin_key", s.admin)
	default:
		w.author = admin.Key
	}
	return w
}

func always(entry string) func(bool) string { return func(bool) string { return entry } }

// WebCreateParams are the new-session form's fields.
type WebCreateParams struct {
	AgentRoot, Title, Prompt string
	MCPServers               *[]string // the picker's ticked servers; nil: the root's defaults
}

// WebCreateSession creates a session from the web UI's form (genesis web_ui) and records the
// prompt as web_ui.new_session. A blank prompt (a session started without one) records nothing.
func (s *Service) WebCreateSession(ctx context.Context, p WebCreateParams) (Created, error) {
	cp := CreateParams{AgentRoot: nonBlank(p.AgentRoot), Title: nonBlank(p.Title), Prompt: nonBlank(p.Prompt), MCPServers: p.MCPServers,
		ExplicitGenesis: session.GenesisWebUI}
	cp.captured = s.capturing(s.webWords(ctx, p.Prompt, always(EntryWebNewSession)))
	return s.Create(ctx, cp)
}

// WebQuickPrompt starts a router session on the prompt (genesis web_ui) and records it as
// web_ui.quick_prompt. The prompt is required: a router with nothing to route does nothing.
func (s *Service) WebQuickPrompt(ctx context.Context, prompt string) (Created, error) {
	if _, err := requiredText("Prompt", prompt, session.MaxPrompt); err != nil {
		return Created{}, err
	}
	root := RouterRoot
	cp := CreateParams{AgentRoot: &root, Prompt: &prompt, ExplicitGenesis: session.GenesisWebUI}
	cp.captured = s.capturing(s.webWords(ctx, prompt, always(EntryWebQuickPrompt)))
	return s.Create(ctx, cp)
}

// WebFollowUp sends a follow-up typed in the browser and records it as web_ui.follow_up, or
// web_ui.follow_up_queued when the session was running and the prompt waits in its queue.
func (s *Service) WebFollowUp(ctx context.Context, id int64, prompt string) (FollowUpResult, error) {
	p := FollowUpParams{Prompt: prompt}
	p.captured = s.capturing(s.webWords(ctx, prompt, func(queued bool) string {
		if queued {
			return EntryWebFollowUpQueued
		}
		return EntryWebFollowUp
	}))
	return s.FollowUp(ctx, id, p)
}

// WebEnqueue appends a message typed in the browser to the session's queue and records it as
// web_ui.enqueued_message — when typed, not when delivered.
func (s *Service) WebEnqueue(ctx context.Context, id int64, content string) (*session.Message, error) {
	p := MessageParams{Content: content}
	p.captured = s.capturing(s.webWords(ctx, content, always(EntryWebEnqueued)))
	return s.CreateMessage(ctx, id, p)
}

// nonBlank is a form field as an optional value: stripped, and omitted when blank.
func nonBlank(v string) *string {
	if v = strings.TrimSpace(v); v == "" {
		return nil
	}
	return &v
}
