package mcp_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGetSessionAsOfShowsTheHierarchyAsItStoodThen: get_session with as_of before a remove_uncle
// lists the removed senior; after it, not; a bad as_of is an isError saying what it must be.
func TestGetSessionAsOfShowsTheHierarchyAsItStoodThen(t *testing.T) {
	t.Parallel()
	e := setup(t)
	senior, junior := e.fixture(t, nil), e.fixture(t, nil)
	e.ok(t, "/mcp", "action_session", act(junior.ID, "follow_up", map[string]any{"prompt": "p", "acting_session_id": fmt.Sprint(senior.ID)}))
	time.Sleep(5 * time.Millisecond)
	linked := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(5 * time.Millisecond)
	e.ok(t, "/mcp", "action_session", act(junior.ID, "remove_uncle", map[string]any{"uncle_session_id": senior.ID}))
	removed := time.Now().UTC().Format(time.RFC3339Nano)
	seniorLine := fmt.Sprintf("#%d [", senior.ID)
	before := e.ok(t, "/mcp", "get_session", map[string]any{"id": junior.ID, "as_of": linked})
	if !strings.Contains(before, seniorLine) || !strings.Contains(before, "as they stood at") {
		t.Fatalf("as of before the removal, the senior #%d is missing:\n%s", senior.ID, before)
	}
	for _, text := range []string{e.ok(t, "/mcp", "get_session", map[string]any{"id": junior.ID, "as_of": removed}),
		e.ok(t, "/mcp", "get_session", map[string]any{"id": junior.ID})} {
		if strings.Contains(text, seniorLine) {
			t.Fatalf("after the removal, the senior #%d is still in the hierarchy:\n%s", senior.ID, text)
		}
	}
	e.refused(t, "/mcp", "get_session", map[string]any{"id": junior.ID, "as_of": "last Tuesday"},
		`as_of must be an RFC 3339 time such as 2026-01-02T15:04:05Z; "last Tuesday" is not one.`)
}
