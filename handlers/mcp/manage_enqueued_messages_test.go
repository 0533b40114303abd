package mcp_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

func queue(id int64, action string, extra map[string]any) map[string]any {
	args := map[string]any{"session_id": id, "action": action}
	for k, v := range extra {
		args[k] = v
	}
	return args
}

// messageIDIn is the Message ID line of a result.
func messageIDIn(t *testing.T, text string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(between(text, "- **Message ID:** ", "\n"), 10, 64)
	if err != nil {
		t.Fatalf("no message id in:\n%s", text)
	}
	return id
}

func TestTheQueueCanBeReadAndConsolidated(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	first := e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "create", map[string]any{"content": "first", "goal": "g1"}))
	contains(t, first, "## Message Queued", "- **Position:** 1", "- **Goal:** g1", "- **Queue:** 1 message(s) now pending")
	second := e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "create", map[string]any{"content": "second"}))
	contains(t, second, "- **Queue:** 2 message(s) now pending")
	id1, id2 := messageIDIn(t, first), messageIDIn(t, second)

	list := e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "list", nil))
	contains(t, list, "## Enqueued Messages (2 total, page 1 of 1)", fmt.Sprintf("### Position 1 (ID: %d)", id1), fmt.Sprintf("### Position 2 (ID: %d)", id2), "- **Origin:** caller")

	contains(t, e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "update", map[string]any{"message_id": id2, "content": "second, restated", "goal": ""})),
		"## Message Updated")
	got := e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "get", map[string]any{"message_id": id2}))
	contains(t, got, "second, restated", "- **Status:** pending")
	contains(t, e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "reorder", map[string]any{"message_id": id2, "position": 1})), "- **Position:** 1")
	contains(t, e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "delete", map[string]any{"message_id": id1})), "## Message Deleted")
	contains(t, e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "list", nil)), "(1 total")

	interrupted := e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "interrupt", map[string]any{"message_id": id2}))
	contains(t, interrupted, "## Message Delivered as an Interrupt", "jumped to the front")
	contains(t, e.ok(t, "/mcp", "manage_enqueued_messages", queue(s.ID, "list", nil)), "No enqueued messages found.")
}

func TestSendNowInterruptsWithAStagedMessage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	idle := e.fixture(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })
	acting := e.fixture(t, nil)
	text := e.ok(t, "/mcp", "manage_enqueued_messages", queue(idle.ID, "send_now", map[string]any{"content": "now", "acting_session_id": acting.ID}))
	contains(t, text, "## Message Sent Immediately", "- **New Status:** running", "- **Still pending behind it:** 0")
	contains(t, e.timeline(t, idle.ID), "mcp:manage_enqueued_messages.send_now")
	archived := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	e.refused(t, "/mcp", "manage_enqueued_messages", queue(archived.ID, "send_now", map[string]any{"content": "x"}), "Cannot send follow-up:")
}

func TestQueueActionsRefuseWhatIsMissing(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, nil)
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"an unknown session", queue(999999999, "list", nil), "Session not found: 999999999"},
		{"message_id for get", queue(s.ID, "get", nil), `The "message_id" parameter is required for the "get" action.`},
		{"an unknown message", queue(s.ID, "get", map[string]any{"message_id": 999999999}), "Enqueued message not found: 999999999"},
		{"content for create", queue(s.ID, "create", map[string]any{"content": "  "}), `The "content" parameter is required for the "create" action.`},
		{"content for send_now", queue(s.ID, "send_now", nil), `The "content" parameter is required for the "send_now" action.`},
		{"an update with nothing", queue(s.ID, "update", map[string]any{"message_id": 1}), `Pass content and/or goal for the "update" action.`},
		{"an unknown action", queue(s.ID, "shuffle", nil), "Invalid arguments: action must be one of: list, get, create"},
		{"a position below 1", queue(s.ID, "reorder", map[string]any{"message_id": 1, "position": 0}), "Invalid arguments: position must be at least 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, "/mcp", "manage_enqueued_messages", c.args, c.want)
		})
	}
}

func TestEnqueueWithActingSessionRecordsItsSource(t *testing.T) {
	t.Parallel()
	e := setup(t)
	router, target := e.fixture(t, nil), e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	e.ok(t, "/mcp", "manage_enqueued_messages", queue(target.ID, "create", map[string]any{"content": "c", "acting_session_id": fmt.Sprint(router.ID)}))
	line := e.timeline(t, target.ID)
	if !strings.Contains(line, "mcp:manage_enqueued_messages.create") {
		t.Fatalf("the uncle edge names its MCP source:\n%s", line)
	}
}
