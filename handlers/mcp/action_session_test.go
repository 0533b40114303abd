package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func act(id int64, action string, extra map[string]any) map[string]any {
	args := map[string]any{"session_id": id, "action": action}
	for k, v := range extra {
		args[k] = v
	}
	return args
}

// timeline is a session's log as one string.
func (e *env) timeline(t *testing.T, id int64) string {
	t.Helper()
	entries, err := e.ops.Timeline(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, en := range entries {
		b.WriteString(en.Content + "\n")
	}
	return b.String()
}

func (e *env) reload(t *testing.T, s *session.Session) *session.Session {
	t.Helper()
	out, err := e.ops.Get(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFollowUpTakesTheSessionsPathAndReportsTheQueue(t *testing.T) {
	t.Parallel()
	e := setup(t)
	idle := e.fixture(t, nil)
	sent := e.ok(t, "/mcp", "action_session", act(idle.ID, "follow_up", map[string]any{"prompt": "go on", "goal": "a new goal"}))
	contains(t, sent, "## Follow-up Sent", "- **New Status:** running", "- **Message:** Follow-up prompt sent", "- **Still pending behind it:** 0")
	if got := e.reload(t, idle); got.Goal == nil || *got.Goal != "a new goal" {
		t.Fatalf("a non-blank goal becomes the session's: %v", got.Goal)
	}
	busy := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	e.ok(t, "/mcp", "action_session", act(busy.ID, "follow_up", map[string]any{"prompt": "first"}))
	queued := e.ok(t, "/mcp", "action_session", act(busy.ID, "follow_up", map[string]any{"prompt": "second"}))
	contains(t, queued, "Message queued (session is running)", "- **Queue:** 2 message(s) now pending for this session, this one included",
		"Others are already waiting")
	e.refused(t, "/mcp", "action_session", act(busy.ID, "follow_up", nil), `The "prompt" parameter is required for the "follow_up" action.`)
	e.refused(t, "/mcp", "action_session", map[string]any{"action": "follow_up", "prompt": "x"}, `The "session_id" parameter is required for the "follow_up" action.`)
	e.refused(t, "/mcp", "action_session", act(999999999, "follow_up", map[string]any{"prompt": "x"}), "Session not found: 999999999")
	failed := e.fixture(t, func(s *session.Session) { s.Status = session.StatusFailed })
	e.refused(t, "/mcp", "action_session", act(failed.ID, "follow_up", map[string]any{"prompt": "x"}), "Cannot send follow-up:")
}

func TestFollowUpWithActingSessionRecordsAnUncleEdge(t *testing.T) {
	t.Parallel()
	e := setup(t)
	router, target := e.fixture(t, nil), e.fixture(t, nil)
	e.ok(t, "/mcp", "action_session", act(target.ID, "follow_up", map[string]any{"prompt": "p", "acting_session_id": fmt.Sprint(router.ID)}))
	contains(t, e.timeline(t, target.ID), fmt.Sprintf("session #%d queued or interrupted session #%d", router.ID, target.ID), "mcp:action_session.follow_up")
	removed := e.ok(t, "/mcp", "action_session", act(target.ID, "remove_uncle", map[string]any{"uncle_session_id": router.ID, "acting_session_id": target.ID}))
	contains(t, removed, "## Uncle Edge Removed", fmt.Sprintf("#%d → #%d", router.ID, target.ID), "mcp:action_session.follow_up")
	e.refused(t, "/mcp", "action_session", act(target.ID, "remove_uncle", map[string]any{"uncle_session_id": router.ID}),
		fmt.Sprintf("Not found: No uncle edge #%d → #%d", router.ID, target.ID))
	e.refused(t, "/mcp", "action_session", act(target.ID, "remove_uncle", nil), `The "uncle_session_id" parameter is required`)
}

func TestArchiveRefusesAnotherSessionsRunningTurn(t *testing.T) {
	t.Parallel()
	e := setup(t)
	running := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	other := e.fixture(t, nil)
	stampedOther := fmt.Sprintf("/mcp?session_id=%d", other.ID)
	for _, path := range []string{"/mcp", stampedOther} {
		e.refused(t, path, "action_session", act(running.ID, "archive", map[string]any{"force": true}),
			fmt.Sprintf("Cannot archive session #%d: it is running a turn", running.ID))
	}
	if e.reload(t, running).Status != session.StatusRunning {
		t.Fatal("a refused archive changed nothing")
	}
	self := fmt.Sprintf("/mcp?tool_groups=self_session&session_id=%d", running.ID)
	text := e.ok(t, self, "action_session", map[string]any{"action": "archive"})
	contains(t, text, "## Session Archived", "- **Status:** archived", fmt.Sprintf("- **Archived by:** session #%d via the self-session MCP server", running.ID))
	contains(t, e.timeline(t, running.ID), fmt.Sprintf("Session archived by session #%d via the self-session MCP server", running.ID))
}

func TestArchiveRefusesOverQueuedMessagesUnlessForced(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })
	if _, err := e.ops.CreateMessage(context.Background(), s.ID, orchestrator.MessageParams{Content: "wait for me"}); err != nil {
		t.Fatal(err)
	}
	e.refused(t, "/mcp", "action_session", act(s.ID, "archive", nil), "do not archive; end your turn instead")
	text := e.ok(t, "/mcp", "action_session", act(s.ID, "archive", map[string]any{"force": true, "acting_session_id": 42}))
	contains(t, text, "- **Archived by:** session #42 via the MCP API")
	contains(t, e.timeline(t, s.ID), "Session archived by session #42 via the MCP API; forced: 1 queued message(s) were discarded")
	contains(t, e.ok(t, "/mcp", "action_session", act(s.ID, "unarchive", nil)), "## Session Unarchived", "- **New Status:** needs_input")
	e.refused(t, "/mcp", "action_session", act(s.ID, "unarchive", nil), "Cannot restore")
}

func TestBulkArchiveReportsEachRefusal(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a, running := e.fixture(t, nil), e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	text := e.ok(t, "/mcp", "action_session", map[string]any{"action": "bulk_archive", "session_ids": []any{a.ID, running.ID, 999999999}})
	contains(t, text, "## Bulk Archive Complete", "- **Archived:** 1", "- **Skipped (unknown or already archived):** 1", "- **Errors:** 1",
		fmt.Sprintf("  - Session %d: Cannot archive session #%d: it is running a turn", running.ID, running.ID))
	e.refused(t, "/mcp", "action_session", map[string]any{"action": "bulk_archive", "session_ids": []any{}}, `The "session_ids" parameter is required`)
}

func TestEditingActionsChangeTheSession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, func(s *session.Session) { s.Metadata[session.MetaAgentRoot] = "zimmer" })
	cases := []struct {
		name   string
		action string
		args   map[string]any
		want   string
		check  func(*session.Session) bool
	}{
		{"update_title", "update_title", map[string]any{"title": "  Renamed  "}, "## Title Updated",
			func(u *session.Session) bool { return *u.Title == "Renamed" }},
		{"update_notes", "update_notes", map[string]any{"session_notes": "remember this"}, "## Notes Updated",
			func(u *session.Session) bool { return *u.SessionNotes == "remember this" }},
		{"update_notes clears with \"\"", "update_notes", map[string]any{"session_notes": ""}, "## Notes Cleared",
			func(u *session.Session) bool { return u.SessionNotes == nil }},
		{"set_heartbeat", "set_heartbeat", map[string]any{"enabled": true, "interval_seconds": 120}, "- **Interval:** 120 s",
			func(u *session.Session) bool { return u.HeartbeatEnabled && u.HeartbeatInterval == 120 }},
		{"change_goal resolves a goal id", "change_goal", map[string]any{"goal": "codebase-question"}, "## Goal Updated",
			func(u *session.Session) bool {
				return u.Goal != nil && strings.HasPrefix(*u.Goal, "Answer the question")
			}},
		{"change_goal clears", "change_goal", map[string]any{"goal": ""}, "## Goal Cleared",
			func(u *session.Session) bool { return u.Goal == nil }},
		{"change_precedence takes an integer string", "change_precedence", map[string]any{"precedence": "12"}, "- **Precedence:** 12 (was",
			func(u *session.Session) bool { return u.Precedence == 12 }},
		{"change_precedence top_of_spot", "change_precedence", map[string]any{"place": "top_of_spot"}, "## Precedence Updated",
			func(u *session.Session) bool { return u.Precedence > 12 }},
		{"change_scheduling_class", "change_scheduling_class", map[string]any{"scheduling_class": "priority", "precedence": 3},
			"- **Scheduling class:** priority (was spot)", func(u *session.Session) bool { return u.PriorityClass() == session.ClassPriority && u.Precedence == 3 }},
		{"change_scheduling_class null derives it", "change_scheduling_class", map[string]any{"scheduling_class": nil},
			"- **Source:** derived from genesis api", func(u *session.Session) bool { return u.SchedulingClass == nil }},
		{"change_model", "change_model", map[string]any{"model": "sonnet"}, "- **Model:** sonnet (was opus)",
			func(u *session.Session) bool { return u.Config["model"] == "sonnet" }},
		{"change_mcp_servers replaces", "change_mcp_servers", map[string]any{"mcp_servers": []any{"context7", " context7 "}}, "- **Now:** context7",
			func(u *session.Session) bool { return strings.Join(u.MCPServers, ",") == "context7" }},
		{"change_mcp_servers [] clears", "change_mcp_servers", map[string]any{"mcp_servers": []any{}}, "- **Removed:** context7",
			func(u *session.Session) bool {
				return len(u.MCPServers) == 0 && u.Metadata[session.MetaMCPServersExplicitlyEmpty] == true
			}},
		{"change_auto_compact_window", "change_auto_compact_window", map[string]any{"auto_compact_window": 150000}, "- **Auto-compact Window:** 150000",
			func(u *session.Session) bool { return u.AutoCompactWindow == 150000 }},
		{"toggle_push_notifications", "toggle_push_notifications", nil, "- **Push Notifications:** on",
			func(u *session.Session) bool { return u.PushNotificationsEnabled }},
		{"toggle_favorite", "toggle_favorite", nil, "- **Favorited:** true",
			func(u *session.Session) bool { return u.Favorited }},
		{"set_visibility snoozed", "set_visibility", map[string]any{"visibility": "snoozed", "snoozed_until": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)},
			"- **Visibility:** snoozed until", func(u *session.Session) bool { return u.Visibility == "snoozed" }},
		{"set_visibility visible", "set_visibility", map[string]any{"visibility": "visible"}, "- **Visibility:** visible",
			func(u *session.Session) bool { return u.Visibility == "visible" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			contains(t, e.ok(t, "/mcp", "action_session", act(s.ID, c.action, c.args)), c.want)
			if !c.check(e.reload(t, s)) {
				t.Fatalf("%s did not change the session as expected", c.action)
			}
		})
	}
}

func TestEditingActionsRefuseBadValues(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, nil)
	cases := []struct {
		name   string
		action string
		args   map[string]any
		want   string
	}{
		{"unknown skill lists the valid ones", "change_skills", map[string]any{"skills": []any{"nope"}}, "Invalid skills: nope. Valid skills:"},
		{"a list action without its list", "change_hooks", nil, `The "hooks" parameter is required for the "change_hooks" action.`},
		{"a model of another runtime", "change_model", map[string]any{"model": "gpt-5.4"}, `Invalid model: model "gpt-5.4" is not valid for runtime claude_code. Valid models: opus, sonnet, haiku, fable`},
		{"heartbeat with nothing to set", "set_heartbeat", nil, `The "set_heartbeat" action requires at least one of "enabled" or "interval_seconds".`},
		{"heartbeat interval too short", "set_heartbeat", map[string]any{"interval_seconds": 5}, "Invalid arguments: interval_seconds must be at least 30"},
		{"precedence not an integer", "change_precedence", map[string]any{"precedence": "soon"}, `precedence must be an integer (got "soon")`},
		{"place beside precedence", "change_precedence", map[string]any{"precedence": 1, "place": "top_of_spot"}, "place and precedence are mutually exclusive"},
		{"snoozed without a time", "set_visibility", map[string]any{"visibility": "snoozed"}, "visibility snoozed needs snoozed_until"},
		{"a blank title", "update_title", map[string]any{"title": "   "}, `The "title" parameter is required for the "update_title" action.`},
		{"change_goal without goal", "change_goal", nil, `The "goal" parameter is required for the "change_goal" action.`},
		{"a title over the limit", "update_title", map[string]any{"title": strings.Repeat("t", 101)}, "Invalid arguments: title must be at most 100 characters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, "/mcp", "action_session", act(s.ID, c.action, c.args), c.want)
		})
	}
}

func TestRegeneratingTheSummaryOfASessionThatNeverRanIsRefused(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, func(s *session.Session) {
		s.Status = session.StatusRunning
		s.Metadata[session.MetaAgentRoot] = "zimmer"
	})
	e.refused(t, "/mcp", "action_session", act(s.ID, "regenerate_status_summary", nil), "Session has no transcript yet.")
}

func TestPauseIntoSpotQueueSleepsWithNoTrigger(t *testing.T) {
	t.Parallel()
	e := setup(t)
	idle := e.fixture(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })
	text := e.ok(t, "/mcp", "action_session", act(idle.ID, "pause_into_spot_queue", nil))
	contains(t, text, "## Parked in the Spot Queue", "- **Status:** waiting", "- **When:** now", "the spot scheduler resumes it")
	running := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	// The self variant has no halt: passed anyway, it is ignored and the turn finishes.
	self := fmt.Sprintf("/mcp?tool_groups=self_session&session_id=%d", running.ID)
	text = e.ok(t, self, "action_session", map[string]any{"action": "pause_into_spot_queue", "halt": true})
	contains(t, text, "- **Status:** running", "after the current turn", "End your turn now.")
	if got := e.reload(t, running); got.Metadata[session.MetaPendingSleep] != true || got.Metadata[session.MetaSpotQueuedAt] == nil {
		t.Fatalf("a running session sleeps after its turn: %v", got.Metadata)
	}
	other := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning; s.RunningJobID = ptr("job-1") })
	text = e.ok(t, "/mcp", "action_session", act(other.ID, "pause_into_spot_queue", map[string]any{"halt": true}))
	contains(t, text, "- **Status:** waiting", "halted where it stood")
	if got := e.reload(t, other); got.RunningJobID != nil || got.Metadata[session.MetaPendingSleep] != nil {
		t.Fatalf("a halted turn loses its ownership and sleeps now: %+v", got.Metadata)
	}
	archived := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	e.refused(t, "/mcp", "action_session", act(archived.ID, "pause_into_spot_queue", nil), "Cannot park")
}

func TestRootFencedConnectionsRefuseTheActionsThatSpawnOrAddServers(t *testing.T) {
	t.Parallel()
	e := setup(t)
	inside := e.fixture(t, func(s *session.Session) { s.Metadata[session.MetaAgentRoot] = "zimmer" })
	outside := e.fixture(t, func(s *session.Session) { s.Metadata[session.MetaAgentRoot] = "general-agent" })
	rootless := e.fixture(t, nil)
	dropped := e.fixture(t, func(s *session.Session) { s.Metadata[session.MetaAgentRoot] = "retired-root" })
	fenced := "/mcp?allowed_agent_roots=zimmer,retired-root"
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"change_mcp_servers outright", act(inside.ID, "change_mcp_servers", map[string]any{"mcp_servers": []any{}}),
			`The "change_mcp_servers" action is not allowed when this connection is restricted`},
		{"change_plugins outright", act(inside.ID, "change_plugins", map[string]any{"plugins": []any{}}),
			`The "change_plugins" action is not allowed when this connection is restricted`},
		{"fork of a session outside the fence", act(outside.ID, "fork", map[string]any{"message_index": 1}),
			fmt.Sprintf(`session #%d belongs to agent root "general-agent", which is not in the allowed list, so this connection may not fork it`, outside.ID)},
		{"restart of a session naming no root", act(rootless.ID, "restart", nil),
			fmt.Sprintf("session #%d names no agent root, so this connection may not restart it", rootless.ID)},
		{"regenerate_status_summary of a root the catalog dropped", act(dropped.ID, "regenerate_status_summary", nil),
			`belongs to agent root "retired-root", which the catalog no longer has`},
		{"inside the fence it gets as far as the operation", act(inside.ID, "fork", map[string]any{"message_index": 1}),
			"Fork failed: session #" + fmt.Sprint(inside.ID) + " has no transcript yet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, fenced, "action_session", c.args, c.want)
		})
	}
	// Everything else is unfenced.
	e.ok(t, fenced, "action_session", act(outside.ID, "update_notes", map[string]any{"session_notes": "fine"}))
}
