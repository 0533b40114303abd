package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

// Payload budgets of get_session's default rendering; verbose: true renders everything.
const (
	promptBudget       = 1000
	metadataValueLimit = 300
	queuePreviewCount  = 5
	queuePreviewLimit  = 120
)

func getSessionTool() *toolDef {
	return &toolDef{name: "get_session", group: groupSessions, composites: []string{compositeSelf}, full: variant{
		description: "One session in full: status, scheduling, repository, execution settings, prompt, metadata, the " +
			"### Session Hierarchy it belongs to, the ### Human Messages anywhere in that hierarchy (a summary here: " +
			"get_session_provenance lists them whole), its ### Queued Messages, timestamps. Both the hierarchy and " +
			"human-message sections are always present, so \"no human spoke\" is distinguishable from \"not asked\". " +
			"By default the prompt is cut to 1,000 characters and long metadata strings to 300, each cut marked with " +
			"its real length; verbose: true renders everything. id (or session_id) defaults to this connection's session.",
		schema: newSchema(fields{
			"id":                 sessionRef("The session: id or slug (defaults to this connection's session)."),
			"session_id":         sessionRef("Same as id."),
			"verbose":            boolean("Render everything: the whole prompt, metadata and the uncut human-message record."),
			"include_transcript": boolean("Inline the transcript."),
			"transcript_format":  str("Transcript rendering.").enum("text", "json"),
			"include_logs":       boolean("Include the session's timeline, newest first."),
			"logs_page":          integer("Timeline page (default 1).").min(1),
			"logs_per_page":      integer("Timeline entries per page (default 25).").min(1).max(100),
			"as_of":              str("An RFC 3339 time: show the hierarchy and human messages as they stood then (removed uncle edges count until their removal)."),
		}),
		run: runGetSession,
	}}
}

func runGetSession(ctx context.Context, c *call) (string, error) {
	idArg := "id"
	if !c.args.has("id") && c.args.has("session_id") {
		idArg = "session_id"
	}
	id, err := c.viewID(ctx, idArg)
	if err != nil {
		return "", err
	}
	v, err := c.h.ops.SessionView(ctx, id, queuePreviewCount)
	if err != nil {
		return "", sessionNotFound(err, id)
	}
	summary, err := c.h.ops.StatusSummaryOf(v)
	if err != nil {
		return "", err
	}
	asOf, err := orchestrator.ParseAsOf(c.args.text("as_of"))
	if err != nil {
		return "", err
	}
	if !asOf.IsZero() {
		if v.Record, err = c.h.ops.ProvenanceAsOf(ctx, id, asOf); err != nil {
			return "", err
		}
	}
	verbose, s := c.args.flag("verbose"), v.Record.Session
	var categories map[int64]string
	if v.Category != nil {
		categories = map[int64]string{v.Category.ID: v.Category.Name}
	}
	budget := provenance.Summary
	if verbose {
		budget = provenance.Uncut
	}
	// The sections are most of the page: sized from them, the page is written without regrowing.
	sections := provenance.Sections(v.Record, budget)
	var b doc
	b.Grow(len(sections) + 4096)
	b.heading(2, "Session: "+oneLine(s.DisplayTitle()))
	writeBasics(&b, s, categories)
	writeExecution(&b, s)
	writePrompt(&b, s, verbose)
	writeMetadata(&b, "System Metadata", s.Metadata, verbose)
	writeMetadata(&b, "Custom Metadata", s.CustomMetadata, verbose)
	writeStatusSummary(&b, summary)
	if !asOf.IsZero() {
		b.line(fmt.Sprintf("_The hierarchy and human messages below are as they stood at %s._", asOf.UTC().Format(time.RFC3339)))
	}
	b.line(sections)
	writeQueue(&b, v.Pending, v.PendingTotal)
	writeTimestamps(&b, s)
	if err := writeTranscript(ctx, &b, c, s); err != nil {
		return "", err
	}
	if c.args.flag("include_logs") {
		if err := writeLogs(ctx, &b, c, s); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

var genesisLabels = map[session.Genesis]string{
	session.GenesisWebUI: "web UI", session.GenesisSlack: "Slack", session.GenesisGitHubIssue: "GitHub issue",
	session.GenesisGitHubLabel: "GitHub label", session.GenesisSchedule: "schedule", session.GenesisAOEvent: "session event",
	session.GenesisSystemEvent: "system event", session.GenesisAPI: "API", session.GenesisUnknown: "unknown",
}

// neverCut are the metadata key prefixes a scheduler reads; they are listed in Basic
// Information and never shortened.
var neverCut = []string{"auth_outage_", "spot_hold_", "spot_pause_", "spot_queued_", session.MetaFailureReason, session.MetaPausedBy, session.MetaPendingSleep}

func writeBasics(b *doc, s *session.Session, categories map[int64]string) {
	b.heading(3, "Basic Information")
	b.field("ID", s.ID)
	b.field("Status", s.Status)
	b.field("Agent Runtime", s.AgentRuntime)
	if s.Slug != nil {
		b.field("Slug", *s.Slug)
	}
	b.optField("Agent Root", oneLine(s.AgentRoot()))
	if s.CategoryID != nil {
		b.field("Category", categoryName(*s.CategoryID, categories))
	}
	b.field("Genesis", fmt.Sprintf("%s (%s)", s.Genesis, genesisLabels[s.Genesis]))
	source := "set on this session"
	if s.SchedulingClass == nil {
		source = "default for genesis " + string(s.Genesis)
	}
	b.field("Scheduling class", fmt.Sprintf("%s (%s)", s.PriorityClass(), source))
	precedence := fmt.Sprint(s.Precedence)
	if s.PriorityClass() == session.ClassSpot {
		precedence += " — spot sessions start highest first"
	}
	b.field("Precedence", precedence)
	b.optField("Visibility", visibilityLine(s))
	b.optField("Paused", pausedBy(s))
	for _, k := range sortedKeys(s.Metadata) {
		if k != session.MetaPausedBy && hasAnyPrefix(k, neverCut) {
			b.field(k, oneLine(fmt.Sprint(s.Metadata[k])))
		}
	}
	b.heading(3, "Git Configuration")
	b.field("Git Root", oneLine(session.RedactCredentials(s.GitRoot)))
	b.field("Branch", oneLine(s.Branch))
	if s.Subdirectory != nil {
		b.field("Subdirectory", oneLine(*s.Subdirectory))
	}
}

func hasAnyPrefix(k string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

func writeExecution(b *doc, s *session.Session) {
	b.heading(3, "Execution")
	b.field("Execution Provider", s.ExecutionProvider)
	if m, ok := s.Config[session.ConfigModel].(string); ok {
		b.field("Model", oneLine(m))
	}
	if s.Goal != nil {
		b.field("Goal", oneLine(*s.Goal))
	}
	b.field("MCP Servers", listOrNone(s.AllMCPServers()))
	b.field("Skills", listOrNone(s.CatalogSkills))
	b.field("Hooks", listOrNone(s.CatalogHooks))
	b.field("Plugins", listOrNone(s.CatalogPlugins))
	b.field("Auto-compact Window", s.AutoCompactWindow)
	heartbeat := "off"
	if s.HeartbeatEnabled {
		heartbeat = fmt.Sprintf("every %d s", s.HeartbeatInterval)
	}
	b.field("Heartbeat", heartbeat)
	b.field("Push Notifications", onOff(s.PushNotificationsEnabled))
	b.field("Autonomous", s.IsAutonomous)
	if s.SessionNotes != nil {
		b.heading(3, "Session Notes")
		b.fence("", *s.SessionNotes)
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// writePrompt shows the current prompt, cut to promptBudget characters by default with a
// marker naming its real length: a cut the caller cannot see is not acceptable.
func writePrompt(b *doc, s *session.Session, verbose bool) {
	b.heading(3, "Current Prompt")
	if s.Prompt == nil || *s.Prompt == "" {
		b.line("_No prompt: the session was created without one._")
		return
	}
	text, cutOff := *s.Prompt, false
	if !verbose {
		text, cutOff = cut(text, promptBudget)
	}
	b.fence("", text)
	if cutOff {
		b.linef("_Cut: showing the first %d of %d characters. Pass verbose: true for the whole prompt._", promptBudget, len([]rune(*s.Prompt)))
	}
}

// writeMetadata renders a JSON column, each long string value cut (keys and nesting intact)
// unless verbose, every cut marked with the value's real length.
func writeMetadata(b *doc, title string, bag map[string]any, verbose bool) {
	if len(bag) == 0 {
		return
	}
	b.heading(3, title)
	shown, cuts := bag, 0
	if !verbose {
		shown, cuts = cutStrings(bag, "")
	}
	b.fence("json", prettyJSON(shown))
	if cuts > 0 {
		b.linef("_%d long value(s) above are cut to their first %d characters, each marked with its real length. Pass verbose: true to see them whole._", cuts, metadataValueLimit)
	}
}

// cutStrings copies v with every string longer than metadataValueLimit shortened and marked;
// keys a scheduler reads are left whole.
func cutStrings(bag map[string]any, prefix string) (map[string]any, int) {
	out, cuts := map[string]any{}, 0
	for k, v := range bag {
		if prefix == "" && hasAnyPrefix(k, neverCut) {
			out[k] = v
			continue
		}
		var n int
		out[k], n = cutValue(v)
		cuts += n
	}
	return out, cuts
}

func cutValue(v any) (any, int) {
	switch x := v.(type) {
	case string:
		if head, cutOff := cut(x, metadataValueLimit); cutOff {
			return fmt.Sprintf("%s… [cut: %d of %d characters shown]", head, metadataValueLimit, len([]rune(x))), 1
		}
		return x, 0
	case map[string]any:
		return cutStrings(x, "nested")
	case []any:
		out, cuts := make([]any, len(x)), 0
		for i, el := range x {
			var n int
			out[i], n = cutValue(el)
			cuts += n
		}
		return out, cuts
	}
	return v, 0
}

// writeQueue is the count and a one-line preview of the first few pending messages: without it
// a queue is invisible to a caller deciding whether to add to it.
func writeQueue(b *doc, pending []*session.Message, total int) {
	b.heading(3, "Queued Messages")
	if total == 0 {
		b.line("No messages are pending for this session.")
		return
	}
	b.field("Pending", total)
	for _, m := range pending {
		b.linef("  %d. (ID: %d) %s", m.Position, m.ID, oneLine(preview(m.Content, queuePreviewLimit)))
	}
	if rest := total - len(pending); rest > 0 {
		b.linef("  …and %d more.", rest)
	}
	b.line("_manage_enqueued_messages reads the queue in full; its update, delete and reorder actions consolidate it instead of growing it._")
}

func writeTimestamps(b *doc, s *session.Session) {
	b.heading(3, "Timestamps")
	b.field("Created", timestamp(s.CreatedAt))
	b.field("Updated", timestamp(s.UpdatedAt))
	b.optField("Notes Updated", optTimestamp(s.SessionNotesUpdatedAt))
	b.optField("Archived At", optTimestamp(s.ArchivedAt))
	b.optField("Trash After", optTimestamp(s.TrashAfter))
}

// writeTranscript inlines the transcript when asked (rendered text, or the raw JSONL with
// transcript_format: json), and otherwise says where the file is.
func writeTranscript(ctx context.Context, b *doc, c *call, s *session.Session) error {
	if !c.args.flag("include_transcript") {
		if path := session.BagString(s.Metadata, session.MetaTranscriptPath); path != "" {
			b.heading(3, "Transcript File")
			b.linef("`%s` (or pass include_transcript: true).", oneLine(path))
		}
		return nil
	}
	b.heading(3, "Transcript")
	var (
		text string
		err  error
	)
	if c.args.text("transcript_format") == "json" {
		var raw []byte
		raw, err = c.h.ops.Transcript(ctx, s.ID)
		text = string(raw)
	} else {
		text, err = c.h.ops.RenderTranscript(ctx, s.ID)
	}
	if isNotFound(err) || (err == nil && strings.TrimSpace(text) == "") {
		b.line("No transcript available for this session.")
		return nil
	}
	if err != nil {
		return err
	}
	b.fence("", text)
	return nil
}

func writeLogs(ctx context.Context, b *doc, c *call, s *session.Session) error {
	entries, err := c.h.ops.Timeline(ctx, s.ID)
	if err != nil {
		return err
	}
	page, perPage := intOr(c.args, "logs_page", 1), intOr(c.args, "logs_per_page", orchestrator.DefaultPerPage)
	pages := max((len(entries)+perPage-1)/perPage, 1)
	b.heading(3, fmt.Sprintf("Logs (%d total, page %d of %d)", len(entries), page, pages))
	for i := len(entries) - 1 - (page-1)*perPage; i >= 0 && i > len(entries)-1-page*perPage; i-- {
		e := entries[i]
		b.linef("- %s [%s] %s", timestamp(e.CreatedAt), e.Level, oneLine(e.Content))
	}
	return nil
}
