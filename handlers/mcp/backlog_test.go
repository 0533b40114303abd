package mcp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// backlogEnv is the endpoint with the work backlog to itself, emptied.
func backlogEnv(t *testing.T) *env {
	t.Helper()
	e := setup(t)
	orchestratortest.ExclusiveBacklog(t, orchestratortest.Env{Ops: e.ops, Store: e.store})
	return e
}

func backlogURL(id int64) string {
	return fmt.Sprintf("/mcp?tool_groups=work_backlog&session_id=%d", id)
}

func TestAppendWorkBacklogItemStampsTheWriterAndReportsThePosition(t *testing.T) {
	e := backlogEnv(t)
	writer := e.fixture(t, func(s *session.Session) { s.Metadata = map[string]any{"agent_root_key": "zimmer"} })
	e.ok(t, backlogURL(writer.ID), "append_work_backlog_item", map[string]any{"issue_url": "https://github.com/x/y/issues/1", "band": "low"})
	text := e.ok(t, backlogURL(writer.ID), "append_work_backlog_item", map[string]any{
		"issue_url": "https://github.com/x/y/issues/2", "title": "Fix the flake", "band": "urgent", "notes": "seen twice"})
	contains(t, text, "## Backlog Item Appended", "- **Position:** 1 of 2", "- **Band:** urgent",
		fmt.Sprintf("- **Added by:** session #%d (agent root zimmer)", writer.ID), "- **Notes:** seen twice")

	list := e.ok(t, backlogURL(writer.ID), "get_work_backlog", nil)
	contains(t, list, "## Work Backlog (2 total, page 1 of 1)", "### 1. Fix the flake", "### 2. https://github.com/x/y/issues/1")
}

func TestAppendWorkBacklogItemRefusals(t *testing.T) {
	e := backlogEnv(t)
	writer := e.fixture(t, nil)
	url := backlogURL(writer.ID)
	issue := "https://github.com/x/y/issues/9"
	cases := []struct {
		name string
		path string
		args map[string]any
		want string
	}{
		{"prompt", url, map[string]any{"issue_url": issue, "prompt": "do it"}, "prompt is refused on append_work_backlog_item"},
		{"precedence", url, map[string]any{"issue_url": issue, "precedence": 5}, "precedence is refused"},
		{"pinned", url, map[string]any{"issue_url": issue, "pinned": true}, "pinned is refused on append_work_backlog_item: only a human pins an item. Nothing was appended."},
		{"added_by", url, map[string]any{"issue_url": issue, "added_by": "tadasant"}, "added_by is refused on append_work_backlog_item: the writer is stamped from this connection"},
		{"no session on the connection", "/mcp?tool_groups=work_backlog", map[string]any{"issue_url": issue}, "its URL names no session_id"},
		{"unknown band", url, map[string]any{"issue_url": issue, "band": "someday"}, "Invalid arguments"},
		{"not a URL", url, map[string]any{"issue_url": "issue 9"}, "Validation failed: issue_url must be an http(s) URL of the issue"},
		{"missing issue", url, map[string]any{}, "Missing required arguments: issue_url"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { e.refused(t, c.path, "append_work_backlog_item", c.args, c.want) })
	}
	contains(t, e.ok(t, url, "get_work_backlog", nil), "## Work Backlog (0 total, page 1 of 1)", "The backlog is empty.")
}

func TestPullWorkBacklogItemsSpawnsChildrenAndRecordsThem(t *testing.T) {
	e := backlogEnv(t)
	caller := e.fixture(t, nil)
	url := backlogURL(caller.ID)
	for i := range 3 {
		e.ok(t, url, "append_work_backlog_item", map[string]any{"issue_url": fmt.Sprintf("https://github.com/x/y/issues/%d", i)})
	}
	queue, err := e.ops.Backlog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	text := e.ok(t, url, "pull_work_backlog_items", map[string]any{
		"count": 1, "remove": []any{map[string]any{"item_id": queue[2].ID, "reason": "duplicate"}}})
	contains(t, text, "## Backlog Pull", fmt.Sprintf("- **Pulled by:** session #%d", caller.ID), "- **Left on the backlog:** 1",
		fmt.Sprintf("- Item #%d https://github.com/x/y/issues/2 — duplicate", queue[2].ID),
		fmt.Sprintf("a spot zimmer-orchestrator child of session #%d", caller.ID))
	row, err := e.store.BacklogItem(context.Background(), queue[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	child, err := e.ops.Get(context.Background(), *row.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if *child.ParentSessionID != caller.ID {
		t.Fatalf("the child's parent: %v", child.ParentSessionID)
	}
	contains(t, text, fmt.Sprintf("→ session #%d", child.ID))
}

func TestPullWorkBacklogItemsRefusals(t *testing.T) {
	e := backlogEnv(t)
	caller, other := e.fixture(t, nil), e.fixture(t, nil)
	url := backlogURL(caller.ID)
	e.ok(t, url, "append_work_backlog_item", map[string]any{"issue_url": "https://github.com/x/y/issues/1"})
	queue, _ := e.ops.Backlog(context.Background())
	cases := []struct {
		name string
		path string
		args map[string]any
		want string
	}{
		{"a judgement is no reason", url, map[string]any{"remove": []any{map[string]any{"item_id": queue[0].ID, "reason": "low value"}}}, "Invalid arguments"},
		{"an item not queued", url, map[string]any{"remove": []any{map[string]any{"item_id": queue[0].ID + 999, "reason": "duplicate"}}}, "is not on the backlog (nothing was removed or pulled)"},
		{"too many", url, map[string]any{"count": 21}, "Invalid arguments"},
		{"on behalf of another session", url, map[string]any{"session_id": other.ID}, "must be this connection's own session"},
		{"no caller", "/mcp?tool_groups=work_backlog", nil, "Missing required parameter: session_id"},
		{"a fenced connection", url + "&allowed_agent_roots=zimmer", nil, `agent root "zimmer-orchestrator" is not permitted`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { e.refused(t, c.path, "pull_work_backlog_items", c.args, c.want) })
	}
	contains(t, e.ok(t, url, "get_work_backlog", nil), "(1 total,")
}
