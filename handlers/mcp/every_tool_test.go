package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// TestEveryToolAnswersAValidCall calls each of the 29 tools once with valid arguments: every tool
// answers a result, none an error.
func TestEveryToolAnswersAValidCall(t *testing.T) {
	e := setup(t)
	orchestratortest.ExclusiveBacklog(t, orchestratortest.Env{Ops: e.ops, Store: e.store})
	graphtest.Exclusive(t, "notifications") // it marks every notification read
	me := e.fixture(t, nil)
	other := e.fixture(t, nil)
	archived := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	request := graphtest.Unique(t, "every-tool")
	if _, err := e.ops.CreateElicitation(t.Context(), orchestrator.ElicitationAsk{RequestID: request, Message: "Go on?"}); err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprintf("/mcp?tool_groups=sessions,notifications,triggers,health,gate_decisions,work_backlog&session_id=%d", me.ID)
	calls := map[string]map[string]any{
		"quick_search_sessions":    {"query": "every tool"},
		"get_session":              {"id": me.ID},
		"get_session_provenance":   {"session_id": me.ID},
		"get_configs":              {},
		"get_transcript_archive":   {},
		"start_session":            {"agent_root": "general-agent", "title": "every tool"},
		"action_session":           {"session_id": me.ID, "action": "update_title", "title": "Every tool"},
		"manage_enqueued_messages": {"session_id": me.ID, "action": "list"},
		"manage_categories":        {"action": "list"},
		"respond_to_elicitation":   {"request_id": request, "action_type": "decline"},
		"save_outcome_analysis": {"session_id": archived.ID, "root": map[string]any{
			"trigger": map[string]any{"kind": "New", "source": "user"}, "goal": map[string]any{"text": "t", "kind": "Action"},
			"outcome": map[string]any{"kind": "Success", "explanation": "done"}}},
		"get_notifications":      {},
		"send_push_notification": {"session_id": me.ID, "message": "hi"},
		"action_notification":    {"action": "mark_all_read"},
		"search_triggers":        {},
		"action_trigger": {"action": "create", "name": graphtest.Unique(t, "every-tool"), "agent_root_name": "general-agent",
			"prompt_template": "p", "trigger_type": "schedule", "configuration": map[string]any{"cron": "0 3 1 1 *", "timezone": "UTC"}},
		"wake_me_up_later":                      {"wake_at": "2030-01-01T00:00:00", "prompt": "p"},
		"wake_me_up_when_session_changes_state": {"watched_session_id": other.ID, "event_names": []any{"session_archived"}, "prompt": "p"},
		"get_system_health":                     {},
		"action_health":                         {"action": "preview_queued_jobs", "job_class": "every-tool:nothing-queued"},
		"get_costs":                             {},
		"get_spot_policy":                       {},
		"action_spot_policy":                    {"action": "set_gating", "enabled": false},
		"search_gate_decisions":                 {"surface": graphtest.Unique(t, "surface")},
		"get_gate_decision_feedback":            {},
		"record_gate_decision":                  {"surface": graphtest.Unique(t, "surface"), "decision": "hold"},
		"get_work_backlog":                      {},
		"append_work_backlog_item":              {"issue_url": "https://github.com/x/y/issues/29"},
		"pull_work_backlog_items":               {"count": 1},
	}
	tools := e.tools(t, all)
	if len(tools) != 29 {
		t.Fatalf("the registry has 29 tools; got %d", len(tools))
	}
	for _, name := range tools {
		args, ok := calls[name]
		if !ok {
			t.Errorf("%s has no valid call in this test: add one", name)
			continue
		}
		r := e.call(t, all, name, args)
		if r.isError || strings.Contains(r.text, "is not available yet") {
			t.Errorf("%s %v: want a result, got isError=%v: %s", name, args, r.isError, r.text)
		}
	}
}
