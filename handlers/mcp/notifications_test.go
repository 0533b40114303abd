package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

func TestNotificationToolsPushReadAndDismiss(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := setup(t)
	title := "Nightly build"
	s := e.fixture(t, func(d *session.Session) { d.Title = &title })
	sent := e.ok(t, "/mcp", "send_push_notification", map[string]any{"session_id": s.ID, "message": "Needs the deploy key"})
	if want := fmt.Sprintf("## Push Notification Sent\n\n- **Session ID:** %d\n- **Notification:** Needs the deploy key\n- **Status:** Push notification queued", s.ID); sent != want {
		t.Fatalf("got:\n%s\nwant:\n%s", sent, want)
	}
	self := fmt.Sprintf("/mcp?tool_groups=self_session&session_id=%d", s.ID)
	contains(t, e.ok(t, self, "send_push_notification", map[string]any{"session_id": s.ID, "message": "Second thought"}), "## Push Notification Sent")
	mine := orchestratortest.NotificationsAbout(t, e.ops, s.ID)
	if len(mine) != 2 || mine[0].Message != "Second thought" || mine[1].Message != "Needs the deploy key" {
		t.Fatalf("two pushes, newest first: %+v", mine)
	}
	id := mine[1].ID

	shown := e.ok(t, "/mcp", "get_notifications", map[string]any{"id": id})
	contains(t, shown, fmt.Sprintf("## Notification #%d\n\n- **Type:** custom_message\n- **Read:** No\n- **Session ID:** %d\n- **Session Title:** Nightly build\n- **Session Status:** waiting\n- **Created:** ", id, s.ID))
	listed := e.ok(t, "/mcp", "get_notifications", map[string]any{"per_page": 100})
	contains(t, listed, "## Notifications (", fmt.Sprintf("- **#%d** [unread] custom_message - Nightly build (waiting) (", id))
	contains(t, e.ok(t, "/mcp", "get_notifications", map[string]any{"badge_only": true, "id": id}), "## Notification Badge\n\n**Pending notifications:** ")

	e.refused(t, "/mcp", "action_notification", map[string]any{"action": "dismiss", "id": id}, "Cannot dismiss unread notification")
	if got := e.ok(t, "/mcp", "action_notification", map[string]any{"action": "mark_read", "id": id}); got != fmt.Sprintf("## Notification Marked Read\n\n- **ID:** %d\n- **Type:** custom_message", id) {
		t.Fatalf("mark_read answered:\n%s", got)
	}
	if unread := e.ok(t, "/mcp", "get_notifications", map[string]any{"status": "unread", "per_page": 100}); strings.Contains(unread, fmt.Sprintf("**#%d**", id)) {
		t.Fatalf("status unread lists a read notification:\n%s", unread)
	}
	contains(t, e.ok(t, "/mcp", "get_notifications", map[string]any{"status": "read", "per_page": 100}), fmt.Sprintf("- **#%d** [read] custom_message", id))
	if got := e.ok(t, "/mcp", "action_notification", map[string]any{"action": "dismiss", "id": id}); got != fmt.Sprintf("## Notification Dismissed\n\nNotification %d has been deleted.", id) {
		t.Fatalf("dismiss answered:\n%s", got)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"get_notifications", map[string]any{"id": id}}, {"action_notification", map[string]any{"action": "mark_read", "id": id}},
		{"action_notification", map[string]any{"action": "dismiss", "id": id}}} {
		if got := e.refused(t, "/mcp", call.tool, call.args, "Notification not found"); got != fmt.Sprintf("Notification not found: %d", id) {
			t.Fatalf("%s of a dismissed notification: %s", call.tool, got)
		}
	}
}

func TestNotificationBulkActionsReportCountsAndWhatIsPending(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := setup(t)
	s := e.fixture(t, nil)
	for _, m := range []string{"one", "two"} {
		e.ok(t, "/mcp", "send_push_notification", map[string]any{"session_id": s.ID, "message": m})
	}
	contains(t, e.ok(t, "/mcp", "action_notification", map[string]any{"action": "mark_all_read"}),
		"## All Notifications Marked Read\n\n- **Marked:** ", "\n- **Remaining Pending:** ")
	for _, n := range orchestratortest.NotificationsAbout(t, e.ops, s.ID) {
		if !n.Read {
			t.Fatalf("notification %d is still unread", n.ID)
		}
	}
	contains(t, e.ok(t, "/mcp", "action_notification", map[string]any{"action": "dismiss_all_read"}),
		"## Read Notifications Dismissed\n\n- **Dismissed:** ", "\n- **Remaining Pending:** ")
	if left := orchestratortest.NotificationsAbout(t, e.ops, s.ID); len(left) != 0 {
		t.Fatalf("read notifications remain: %+v", left)
	}
}

func TestNotificationToolsRefuseWhatTheyCannotDo(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := setup(t)
	s := e.fixture(t, nil)
	cases := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"mark_read without an id", "action_notification", map[string]any{"action": "mark_read"}, `"id" is required for the "mark_read" action.`},
		{"dismiss without an id", "action_notification", map[string]any{"action": "dismiss"}, `"id" is required for the "dismiss" action.`},
		{"an unknown notification", "get_notifications", map[string]any{"id": 987654321}, "Notification not found: 987654321"},
		{"a push about an unknown session", "send_push_notification", map[string]any{"session_id": 987654321, "message": "hi"}, "Session not found: 987654321"},
		{"a push about an unknown slug", "send_push_notification", map[string]any{"session_id": "no-such-slug-here", "message": "hi"}, "Session not found: no-such-slug-here"},
		{"a blank push", "send_push_notification", map[string]any{"session_id": s.ID, "message": "   "}, "Missing required parameter: message"},
		{"a push without a message", "send_push_notification", map[string]any{"session_id": s.ID}, "message"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, "/mcp", c.tool, c.args, c.want)
		})
	}
	if left := orchestratortest.NotificationsAbout(t, e.ops, s.ID); len(left) != 0 {
		t.Fatalf("a refused push records nothing: %+v", left)
	}
}
