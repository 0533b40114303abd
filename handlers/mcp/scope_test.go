package mcp_test

import (
	"slices"
	"strings"
	"testing"
)

var (
	sessionsTools = []string{"quick_search_sessions", "get_session", "get_session_provenance", "get_configs",
		"get_transcript_archive", "start_session", "action_session", "manage_enqueued_messages", "manage_categories",
		"respond_to_elicitation", "save_outcome_analysis"}
	notificationsTools = []string{"get_notifications", "send_push_notification", "action_notification"}
	triggersTools      = []string{"search_triggers", "action_trigger", "wake_me_up_later", "wake_me_up_when_session_changes_state"}
	healthTools        = []string{"get_system_health", "action_health", "get_costs", "get_spot_policy", "action_spot_policy"}
	gateTools          = []string{"search_gate_decisions", "get_gate_decision_feedback", "record_gate_decision"}
	backlogTools       = []string{"get_work_backlog", "append_work_backlog_item", "pull_work_backlog_items"}
	defaultTools       = slices.Concat(sessionsTools, notificationsTools, triggersTools, healthTools)
	selfTools          = []string{"get_session", "get_session_provenance", "get_configs", "action_session",
		"send_push_notification", "wake_me_up_later", "wake_me_up_when_session_changes_state", "get_costs"}
)

func TestEachScopeGetsExactlyItsTools(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		name  string
		query string
		want  []string
	}{
		{"no tool_groups: the four base groups, 23 tools", "", defaultTools},
		{"an empty tool_groups is the default", "?tool_groups=", defaultTools},
		{"only separators is the default", "?tool_groups=%20,%20", defaultTools},
		{"sessions", "?tool_groups=sessions", sessionsTools},
		{"self_session: the 8 self tools", "?tool_groups=self_session", selfTools},
		{"self_session with a session_id", "?tool_groups=self_session&session_id=42", selfTools},
		{"sessions_readonly drops the writes", "?tool_groups=sessions_readonly",
			[]string{"quick_search_sessions", "get_session", "get_session_provenance", "get_configs", "get_transcript_archive"}},
		{"any combination of read-only groups", "?tool_groups=triggers_readonly,health_readonly",
			[]string{"search_triggers", "get_system_health", "get_costs", "get_spot_policy"}},
		{"a write group beside a read-only one", "?tool_groups=health,notifications_readonly",
			[]string{"get_notifications", "get_system_health", "action_health", "get_costs", "get_spot_policy", "action_spot_policy"}},
		{"opt-in gate_decisions only when named", "?tool_groups=gate_decisions", gateTools},
		{"opt-in work_backlog only when named", "?tool_groups=work_backlog", backlogTools},
		{"an opt-in group's read-only variant", "?tool_groups=work_backlog_readonly,gate_decisions_readonly",
			[]string{"search_gate_decisions", "get_gate_decision_feedback", "get_work_backlog"}},
		{"every domain group", "?tool_groups=sessions,notifications,triggers,health,gate_decisions,work_backlog",
			slices.Concat(defaultTools, gateTools, backlogTools)},
		{"an unknown group is dropped", "?tool_groups=sessions,bogus", sessionsTools},
		{"only unknown groups: no tools at all, not the default", "?tool_groups=bogus,nope", nil},
		{"group names are case-sensitive", "?tool_groups=Sessions", nil},
		{"repeats count once", "?tool_groups=health,health_readonly,health", healthTools},
		{"the array form", "?tool_groups[]=notifications&tool_groups[]=triggers_readonly",
			[]string{"get_notifications", "send_push_notification", "action_notification", "search_triggers"}},
		{"a plain repeated parameter keeps the last", "?tool_groups=sessions&tool_groups=notifications", notificationsTools},
		{"a composite beside its domain", "?tool_groups=health,self_session",
			[]string{"get_session", "get_session_provenance", "get_configs", "action_session", "send_push_notification",
				"wake_me_up_later", "wake_me_up_when_session_changes_state", "get_system_health", "action_health",
				"get_costs", "get_spot_policy", "action_spot_policy"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := e.tools(t, "/mcp"+c.query); !slices.Equal(got, c.want) {
				t.Fatalf("tools on /mcp%s:\n got %v\nwant %v", c.query, got, c.want)
			}
		})
	}
}

func TestDefaultSurfaceNeverCarriesOptInTools(t *testing.T) {
	t.Parallel()
	e := setup(t)
	got := e.tools(t, "/mcp")
	if len(got) != 23 {
		t.Fatalf("want 23 tools, got %d", len(got))
	}
	for _, opt := range slices.Concat(gateTools, backlogTools) {
		if slices.Contains(got, opt) {
			t.Fatalf("%s is opt-in but rides on /mcp", opt)
		}
	}
}

// actionEnum is the action enum action_session advertises on a URL.
func actionEnum(t *testing.T, e *env, path string) []string {
	t.Helper()
	props := e.toolDef(t, path, "action_session")["inputSchema"].(map[string]any)["properties"].(map[string]any)
	var out []string
	for _, v := range props["action"].(map[string]any)["enum"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func TestDomainMembershipOutranksACompositeOverride(t *testing.T) {
	t.Parallel()
	e := setup(t)
	narrowed := []string{"update_notes", "update_title", "set_heartbeat", "pause_into_spot_queue", "message_parent", "archive"}
	cases := []struct {
		name     string
		path     string
		narrowed bool
	}{
		{"self_session alone gets the narrowed action_session", "/mcp?tool_groups=self_session", true},
		{"sessions beside self_session gets the full one", "/mcp?tool_groups=sessions,self_session", false},
		{"self_session before sessions: order does not matter", "/mcp?tool_groups=self_session,sessions", false},
		{"sessions_readonly carries no write tool, so the override applies", "/mcp?tool_groups=sessions_readonly,self_session", true},
		{"the default surface has the full one", "/mcp", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := actionEnum(t, e, c.path)
			if c.narrowed != slices.Equal(got, narrowed) {
				t.Fatalf("action enum on %s: %v", c.path, got)
			}
			if !c.narrowed && (!slices.Contains(got, "follow_up") || slices.Contains(got, "message_parent")) {
				t.Fatalf("the full action_session has follow_up and no message_parent: %v", got)
			}
		})
	}
	costs := func(path string) map[string]any {
		return e.toolDef(t, path, "get_costs")["inputSchema"].(map[string]any)["properties"].(map[string]any)
	}
	if _, ok := costs("/mcp?tool_groups=self_session")["agent_root"]; ok {
		t.Fatal("the self-scoped get_costs must not advertise agent_root")
	}
	for _, path := range []string{"/mcp?tool_groups=health,self_session", "/mcp?tool_groups=health_readonly,self_session"} {
		if _, ok := costs(path)["agent_root"]; !ok {
			t.Fatalf("%s: a connection holding the health domain gets the unrestricted get_costs", path)
		}
	}
}

func TestInstructionsNameTheEnabledGroupsInOrder(t *testing.T) {
	t.Parallel()
	e := setup(t)
	init := rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	cases := map[string]string{
		"/mcp":                                       "Enabled tool groups: sessions, notifications, triggers, health.",
		"/mcp?tool_groups=health,bogus,sessions":     "Enabled tool groups: health, sessions.",
		"/mcp?tool_groups=bogus":                     "Enabled tool groups: .",
		"/mcp?tool_groups=self_session&session_id=7": "Enabled tool groups: self_session.",
	}
	for path, want := range cases {
		r := e.post(t, path, init)
		if got, _ := r.body["result"].(map[string]any)["instructions"].(string); !strings.HasSuffix(got, want) {
			t.Errorf("%s: instructions %q, want suffix %q", path, got, want)
		}
	}
}

func TestEveryToolDeclaresAnObjectSchemaAndWriteHints(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.post(t, "/mcp?tool_groups=sessions,notifications,triggers,health,gate_decisions,work_backlog", rpc("tools/list", nil))
	tools := r.body["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 29 {
		t.Fatalf("the registry has 29 tools; got %d", len(tools))
	}
	for _, raw := range tools {
		tool := raw.(map[string]any)
		schema := tool["inputSchema"].(map[string]any)
		if schema["type"] != "object" || schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: schema %v", tool["name"], schema)
		}
		if d, _ := tool["description"].(string); len(d) < 40 {
			t.Errorf("%s: a description a model can act on is required, got %q", tool["name"], d)
		}
		if _, ok := tool["annotations"].(map[string]any)["readOnlyHint"]; !ok {
			t.Errorf("%s: no readOnlyHint", tool["name"])
		}
	}
}
