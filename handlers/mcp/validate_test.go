package mcp_test

import (
	"strings"
	"testing"
)

func TestArgumentsAreCheckedAgainstTheSchemaBeforeTheToolRuns(t *testing.T) {
	t.Parallel()
	e := setup(t)
	all := "/mcp?tool_groups=sessions,notifications,triggers,health"
	cases := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"missing required arguments, in schema order", "manage_enqueued_messages", map[string]any{},
			"Missing required arguments: session_id, action"},
		{"null counts as present for required", "manage_enqueued_messages", map[string]any{"session_id": nil, "action": "list"},
			"Invalid arguments: session_id must be a string or a number"},
		{"a maximum is refused, not clamped", "quick_search_sessions", map[string]any{"per_page": 500},
			"Invalid arguments: per_page must be at most 100"},
		{"a minimum", "quick_search_sessions", map[string]any{"page": 0}, "Invalid arguments: page must be at least 1"},
		{"several problems at once, each named", "quick_search_sessions", map[string]any{"page": 0, "per_page": 101},
			"Invalid arguments: page must be at least 1, per_page must be at most 100"},
		{"a wrong type", "get_session", map[string]any{"id": true}, "Invalid arguments: id must be a string or a number"},
		{"an integer argument given a fraction", "quick_search_sessions", map[string]any{"per_page": 2.5},
			"Invalid arguments: per_page must be an integer"},
		{"an enum miss names the valid values", "quick_search_sessions", map[string]any{"priority_class": "urgent"},
			"Invalid arguments: priority_class must be one of: spot, priority"},
		{"maxLength", "quick_search_sessions", map[string]any{"query": strings.Repeat("q", 1001)},
			"Invalid arguments: query must be at most 1000 characters (got 1001)"},
		{"array items", "start_session", map[string]any{"skills": []any{"ok", 7}},
			"Invalid arguments: skills[1] must be a string"},
		{"nested object properties", "action_trigger", map[string]any{"action": "create", "conditions": []any{map[string]any{"trigger_type": "carrier_pigeon"}}},
			"Invalid arguments: conditions[0].trigger_type must be one of: slack, schedule, ao_event"},
		{"a nullable enum admits null but nothing else", "action_session", map[string]any{"action": "change_scheduling_class", "session_id": 1, "scheduling_class": "later"},
			"Invalid arguments: scheduling_class must be one of: spot, priority, null"},
		{"an action outside the enum", "action_session", map[string]any{"action": "explode", "session_id": 1},
			"Invalid arguments: action must be one of: follow_up, pause, restart"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, all, c.tool, c.args, c.want)
		})
	}
}

func TestArgumentsMustBeAnObject(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.post(t, "/mcp", rpc("tools/call", map[string]any{"name": "get_configs", "arguments": []any{1, 2}}))
	res, _ := r.body["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(r.raw, "Invalid arguments: arguments must be a JSON object") {
		t.Fatalf("got %s", r.raw)
	}
}

func TestUnknownArgumentsAreIgnoredAsInTheOriginal(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.ok(t, "/mcp", "get_configs", map[string]any{"no_such_argument": 1})
}
