package mcp_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// categoryIDIn is the "(ID: n)" of the first category heading in a result.
func categoryIDIn(t *testing.T, text string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(between(text, "(ID: ", ")"), 10, 64)
	if err != nil {
		t.Fatalf("no category id in:\n%s", text)
	}
	return id
}

func TestCategoriesOrganizeSessions(t *testing.T) {
	e := setup(t)
	name := graphtest.Unique(t, "Cat")
	created := e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "create", "name": name, "description": "things"})
	contains(t, created, "## Category Created", "- **Frozen:** false", "- **Description:** things")
	id := categoryIDIn(t, created)
	e.refused(t, "/mcp", "manage_categories", map[string]any{"action": "create", "name": strings.ToUpper(name)},
		"Validation failed: Name has already been taken")

	s := e.fixture(t, nil)
	set := e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "set_session_category", "session_id": s.ID, "category_id": id})
	contains(t, set, "## Session Category Set", fmt.Sprintf("- **Category:** %s (ID: %d)", name, id))
	contains(t, e.ok(t, "/mcp", "get_session", map[string]any{"id": s.ID}), fmt.Sprintf("- **Category:** %s (ID: %d)", name, id))
	contains(t, e.ok(t, "/mcp", "quick_search_sessions", map[string]any{"id": s.ID, "verbose": true}), fmt.Sprintf("- **Category:** %s (ID: %d)", name, id))

	list := e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "list"})
	block := list[strings.Index(list, fmt.Sprintf("### %s (ID: %d)", name, id)):]
	contains(t, block, "- **Sessions:** 1")

	updated := e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "update", "category_id": id, "is_frozen": true, "description": ""})
	contains(t, updated, "- **Frozen:** true")
	if strings.Contains(updated, "**Description:**") {
		t.Fatal("a blank description clears it")
	}
	other := categoryIDIn(t, e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "create", "name": name + "-2"}))
	reordered := e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "reorder", "ids": []any{other, id, "uncategorized"}})
	contains(t, reordered, fmt.Sprintf("1. %s-2 (ID: %d)", name, other), fmt.Sprintf("2. %s (ID: %d)", name, id), "Uncategorized is not stored")

	moved := e.ok(t, "/mcp", "action_session", act(s.ID, "change_category", map[string]any{"category_id": other}))
	contains(t, moved, "## Category Updated", fmt.Sprintf("(ID: %d)", other))
	contains(t, e.ok(t, "/mcp", "manage_categories", map[string]any{"action": "delete", "category_id": other}),
		"its 1 session(s) are now Uncategorized")
	if e.reload(t, s).CategoryID != nil {
		t.Fatal("a deleted category's sessions fall back to Uncategorized")
	}
	contains(t, e.ok(t, "/mcp", "action_session", act(s.ID, "change_category", map[string]any{"category_id": nil})), "- **Category:** Uncategorized")
}

func TestCategoryActionsRefuseWhatIsMissing(t *testing.T) {
	e := setup(t)
	s := e.fixture(t, nil)
	cases := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"create without a name", "manage_categories", map[string]any{"action": "create"}, `The "name" parameter is required for the "create" action.`},
		{"update without a category", "manage_categories", map[string]any{"action": "update", "name": "x"}, `The "category_id" parameter is required for the "update" action.`},
		{"update with nothing", "manage_categories", map[string]any{"action": "update", "category_id": 1},
			`provide at least one of "name", "description", or "is_frozen" for the "update" action.`},
		{"an unknown category", "manage_categories", map[string]any{"action": "delete", "category_id": 999999999}, "Category #999999999 not found"},
		{"reorder with nothing", "manage_categories", map[string]any{"action": "reorder", "ids": []any{}}, `The "ids" parameter is required for the "reorder" action`},
		{"reorder naming an unknown id", "manage_categories", map[string]any{"action": "reorder", "ids": []any{999999999}}, "Category #999999999 not found"},
		{"a session into an unknown category", "manage_categories", map[string]any{"action": "set_session_category", "session_id": s.ID, "category_id": 999999999},
			"Category #999999999 not found"},
		{"an unknown session", "manage_categories", map[string]any{"action": "set_session_category", "session_id": "no-such-session", "category_id": nil},
			"Session not found: no-such-session"},
		{"change_category without the key", "action_session", act(s.ID, "change_category", nil), `The "category_id" parameter is required for the "change_category" action.`},
		{"change_category to an unknown one", "action_session", act(s.ID, "change_category", map[string]any{"category_id": 999999999}), "Category #999999999 not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, "/mcp", c.tool, c.args, c.want)
		})
	}
}
