package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// token issues session s's capability token, as the runner does at a turn's claim.
func (e *env) token(t *testing.T, s *session.Session) string {
	t.Helper()
	tok, err := e.ops.IssueSessionToken(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// uncles lists the live uncle edges into s.
func (e *env) uncles(t *testing.T, s *session.Session) []int64 {
	t.Helper()
	h, err := e.store.Hierarchy(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range h.Nodes {
		if n.ID == s.ID {
			return n.UncleIDs
		}
	}
	return nil
}

// TestASessionTokenCannotActAsAnotherSession: with session A's token, every self_session tool
// naming session B is refused (the token, not the argument, says who calls), a URL naming B is
// refused, and every action that declares a session (acting_session_id, parent_session_id)
// outside A and what A spawned is refused with nothing written.
func TestASessionTokenCannotActAsAnotherSession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a := e.fixture(t, func(s *session.Session) { s.Title = ptr("Session A") })
	child := e.fixture(t, func(s *session.Session) { s.ParentSessionID = &a.ID })
	b := e.fixture(t, func(s *session.Session) { s.Title = ptr("Session B") })
	target := e.fixture(t, nil)
	tok := e.token(t, a)
	as := []string{"X-API-Key", tok}

	// The URL may not name another session; without one, the token stamps the connection.
	r := e.post(t, fmt.Sprintf("/mcp?tool_groups=self_session&session_id=%d", b.ID), rpc("tools/call",
		map[string]any{"name": "get_session", "arguments": map[string]any{}}), as...)
	if r.status != http.StatusForbidden || !strings.Contains(fmt.Sprint(r.errorOf()["message"]), fmt.Sprintf("other than #%d", a.ID)) {
		t.Fatalf("a URL naming session B with A's token: %d %s", r.status, r.raw)
	}
	contains(t, e.ok2(t, "/mcp?tool_groups=self_session", "get_session", nil, as), "## Session: Session A")

	pinned := fmt.Sprintf("must be this session (#%d)", a.ID)
	selfCalls := []struct {
		tool string
		args map[string]any
	}{
		{"get_session", map[string]any{"id": b.ID}},
		{"get_session", map[string]any{"session_id": b.ID}},
		{"get_session_provenance", map[string]any{"session_id": b.ID}},
		{"send_push_notification", map[string]any{"session_id": b.ID, "message": "done"}},
		{"wake_me_up_later", map[string]any{"session_id": b.ID, "wake_at": "2099-01-01T00:00:00", "prompt": "wake"}},
		{"wake_me_up_when_session_changes_state", map[string]any{"session_id": b.ID, "watched_session_id": target.ID, "prompt": "wake"}},
		{"get_costs", map[string]any{"session_id": b.ID}},
		{"action_session", map[string]any{"action": "update_notes", "session_id": b.ID, "session_notes": "mine now"}},
		{"action_session", map[string]any{"action": "update_title", "session_id": b.ID, "title": "mine now"}},
		{"action_session", map[string]any{"action": "set_heartbeat", "session_id": b.ID, "enabled": true}},
		{"action_session", map[string]any{"action": "pause_into_spot_queue", "session_id": b.ID}},
		{"action_session", map[string]any{"action": "message_parent", "session_id": b.ID, "message": "hi", "reason": "other"}},
		{"action_session", map[string]any{"action": "archive", "session_id": b.ID}},
	}
	tried := map[string]bool{"get_configs": true} // takes no session argument: nothing to act as
	for _, c := range selfCalls {
		tried[c.tool] = true
		res := e.call(t, "/mcp?tool_groups=self_session", c.tool, c.args, as...)
		if !res.isError || !strings.Contains(res.text, pinned) {
			t.Errorf("self_session %s %v with A's token: want refused (%q), got isError=%v: %s", c.tool, c.args, pinned, res.isError, res.text)
		}
	}
	for _, tool := range e.tools(t, "/mcp?tool_groups=self_session") {
		if !tried[tool] {
			t.Errorf("self_session tool %s is not tried with another session's id", tool)
		}
	}
	if got, _ := e.ops.Get(context.Background(), b.ID); got.Status == session.StatusArchived || got.SessionNotes != nil || got.Title == nil || *got.Title != "Session B" {
		t.Fatalf("session B was changed through A's token: %+v", got)
	}

	// Declaring another session on the full surface is refused before anything is written.
	notYours := fmt.Sprintf("acting_session_id #%d is neither this session (#%d) nor a session it spawned", b.ID, a.ID)
	queued, err := e.ops.CreateMessage(context.Background(), target.ID, orchestrator.MessageParams{Content: "queued earlier"})
	if err != nil {
		t.Fatal(err)
	}
	declared := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"action_session", map[string]any{"action": "follow_up", "session_id": target.ID, "prompt": "p", "acting_session_id": b.ID}, notYours},
		{"action_session", map[string]any{"action": "follow_up", "session_id": target.ID, "prompt": "p", "force_immediate": true, "acting_session_id": b.ID}, notYours},
		{"action_session", map[string]any{"action": "archive", "session_id": target.ID, "force": true, "acting_session_id": b.ID}, notYours},
		{"action_session", map[string]any{"action": "remove_uncle", "session_id": target.ID, "uncle_session_id": child.ID, "acting_session_id": b.ID}, notYours},
		{"manage_enqueued_messages", map[string]any{"action": "create", "session_id": target.ID, "content": "c", "acting_session_id": b.ID}, notYours},
		{"manage_enqueued_messages", map[string]any{"action": "send_now", "session_id": target.ID, "content": "c", "acting_session_id": b.ID}, notYours},
		{"manage_enqueued_messages", map[string]any{"action": "interrupt", "session_id": target.ID, "message_id": queued.ID, "acting_session_id": b.ID}, notYours},
		{"start_session", map[string]any{"prompt": "p", "agent_root": "zimmer", "parent_session_id": b.ID},
			fmt.Sprintf("parent_session_id #%d is neither this session (#%d) nor a session it spawned", b.ID, a.ID)},
	}
	for _, c := range declared {
		res := e.call(t, "/mcp", c.tool, c.args, as...)
		if !res.isError || !strings.Contains(res.text, c.want) || !strings.Contains(res.text, "nothing was written") {
			t.Errorf("%s %v with A's token: want refused (%q), got isError=%v: %s", c.tool, c.args, c.want, res.isError, res.text)
		}
	}
	if got := e.uncles(t, target); len(got) != 0 {
		t.Fatalf("refused calls wrote uncle edges into #%d: %v", target.ID, got)
	}
	if got, _ := e.ops.Get(context.Background(), target.ID); got.Status == session.StatusArchived {
		t.Fatal("a refused archive archived the target")
	}
	if msgs, _, _ := e.ops.ListMessages(context.Background(), target.ID, orchestrator.MessageListParams{}); len(msgs) != 1 {
		t.Fatalf("refused deliveries queued messages: %d in the queue, want only the one queued earlier", len(msgs))
	}

	// A session it spawned is the token's to act as, and the edge says which credential wrote it.
	e.ok2(t, "/mcp", "action_session", map[string]any{"action": "follow_up", "session_id": target.ID, "prompt": "p", "acting_session_id": child.ID}, as)
	if got := e.uncles(t, target); !slices.Equal(got, []int64{child.ID}) {
		t.Fatalf("uncles of #%d after a follow-up acting as A's child: %v", target.ID, got)
	}
	contains(t, e.timeline(t, target.ID), fmt.Sprintf("(mcp:action_session.follow_up (session token of #%d))", a.ID))
	e.ok(t, "/mcp", "action_session", map[string]any{"action": "follow_up", "session_id": b.ID, "prompt": "p", "acting_session_id": target.ID})
	contains(t, e.timeline(t, b.ID), "(mcp:action_session.follow_up (fleet key))")
}

// ok2 is ok with header pairs (a token).
func (e *env) ok2(t *testing.T, path, tool string, arguments map[string]any, headers []string) string {
	t.Helper()
	r := e.call(t, path, tool, arguments, headers...)
	if r.isError {
		t.Fatalf("%s %v: unexpected error result: %s", tool, arguments, r.text)
	}
	return r.text
}

// TestARotatedOrRevokedTokenIsRefused: a session's token stops working when the next turn
// issues another and when the session is archived (401 before anything MCP happens).
func TestARotatedOrRevokedTokenIsRefused(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, nil)
	first := e.token(t, s)
	second := e.token(t, s)
	list := rpc("tools/list", nil)
	if r := e.post(t, "/mcp?tool_groups=self_session", list, "X-API-Key", first); r.status != http.StatusUnauthorized {
		t.Fatalf("the rotated-away token: %d %s", r.status, r.raw)
	}
	if r := e.post(t, "/mcp?tool_groups=self_session", list, "X-API-Key", second); r.status != http.StatusOK {
		t.Fatalf("the current token: %d %s", r.status, r.raw)
	}
	e.ok2(t, "/mcp?tool_groups=self_session", "action_session", map[string]any{"action": "archive"}, []string{"X-API-Key", second})
	for _, h := range [][]string{{"X-API-Key", second}, {"X-API-Key", "", "Authorization", "Bearer " + second}} {
		if r := e.post(t, "/mcp?tool_groups=self_session", list, h...); r.status != http.StatusUnauthorized {
			t.Fatalf("the token of an archived session (%v): %d %s", h[0], r.status, r.raw)
		}
	}
}
