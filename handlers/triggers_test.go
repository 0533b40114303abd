package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func triggerBody(extra map[string]any) map[string]any {
	b := map[string]any{"name": "Nightly triage", "agent_root_name": "general-agent", "prompt_template": "Look at {{repo}}#{{number}}",
		"trigger_conditions_attributes": []any{map[string]any{"condition_type": "schedule", "configuration": map[string]any{"unit": "days", "interval": 1, "time": "03:00"}}}}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func TestTriggerRoutesCreateEditToggleInvokeAndDelete(t *testing.T) {
	e := setup(t)
	r := e.do(t, http.MethodPost, "/api/v1/triggers", triggerBody(map[string]any{"max_sessions_per_minute": 1}))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	tr := r.body["trigger"].(map[string]any)
	path := fmt.Sprintf("/api/v1/triggers/%d", int64(tr["id"].(float64)))
	conds := tr["conditions"].([]any)
	if tr["status"] != "enabled" || len(conds) != 1 || conds[0].(map[string]any)["description"] != "every 1 days at 03:00 (UTC)" ||
		tr["effective_scheduling_class"] != "spot" {
		t.Fatalf("created trigger: %s", r.raw)
	}
	first := conds[0].(map[string]any)["id"]

	r = e.do(t, http.MethodPatch, path, map[string]any{"trigger_conditions_attributes": []any{
		map[string]any{"condition_type": "github_issue", "configuration": map[string]any{"repos": []any{"acme/app"}}},
		map[string]any{"id": first, "_destroy": true},
	}})
	if r.status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.status, r.raw)
	}
	if conds := r.body["trigger"].(map[string]any)["conditions"].([]any); len(conds) != 1 || conds[0].(map[string]any)["condition_type"] != "github_issue" {
		t.Fatalf("the patch left conditions %v; want only the appended github_issue one", conds)
	}
	if r = e.do(t, http.MethodPost, path+"/toggle", nil); r.body["trigger"].(map[string]any)["status"] != "disabled" {
		t.Fatalf("toggle: %d %s", r.status, r.raw)
	}
	r = e.do(t, http.MethodPost, path+"/invoke", map[string]any{"variables": map[string]any{"repo": "acme/app", "number": 7, "nope": "x"}})
	if r.status != http.StatusCreated || r.body["burst_notice"] != false {
		t.Fatalf("invoke: %d %s", r.status, r.raw)
	}
	sid := int64(r.session(t)["id"].(float64))
	if got := e.do(t, http.MethodGet, fmt.Sprintf("/api/v1/sessions/%d", sid), nil).session(t); got["prompt"] != "Look at acme/app#7" || got["genesis"] != "api" {
		t.Fatalf("the invoked session: prompt %v, genesis %v", got["prompt"], got["genesis"])
	}
	// Over the cap of one per minute: the second fire is the burst notice, the third suppressed.
	if r = e.do(t, http.MethodPost, path+"/invoke", nil); r.status != http.StatusCreated || r.body["burst_notice"] != true {
		t.Fatalf("second invoke: %d %s", r.status, r.raw)
	}
	r = e.do(t, http.MethodPost, path+"/invoke", nil)
	if tr := r.body["trigger"].(map[string]any); r.status != http.StatusTooManyRequests || r.body["error"] != "Burst suppressed" ||
		tr["bursting"] != true || tr["burst_suppressed_count"] != float64(1) || tr["sessions_created_count"] != float64(2) {
		t.Fatalf("third invoke: %d %s", r.status, r.raw)
	}

	list := e.do(t, http.MethodGet, "/api/v1/triggers?condition_type=github_issue&status=disabled&per_page=100", nil)
	found := false
	for _, item := range list.body["triggers"].([]any) {
		found = found || item.(map[string]any)["id"] == tr["id"]
	}
	if list.status != http.StatusOK || !found || list.body["pagination"].(map[string]any)["per_page"] != float64(100) {
		t.Fatalf("list: %d %s", list.status, list.raw)
	}
	if r = e.do(t, http.MethodDelete, path, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	for _, p := range []string{path, "/api/v1/triggers/not-a-number"} {
		if r = e.do(t, http.MethodGet, p, nil); r.status != http.StatusNotFound {
			t.Fatalf("GET %s after delete: %d %s", p, r.status, r.raw)
		}
	}
}

func TestTriggerRoutesRefuseBadInputWithoutWriting(t *testing.T) {
	e := setup(t)
	before := e.do(t, http.MethodGet, "/api/v1/triggers?per_page=1", nil).body["pagination"].(map[string]any)["total_count"]
	cases := []struct {
		name string
		body map[string]any
		want string
	}{
		{"no condition", triggerBody(map[string]any{"trigger_conditions_attributes": []any{}}), "A trigger needs at least one condition"},
		{"no name", triggerBody(map[string]any{"name": ""}), "Name can't be blank"},
		{"a wrong type", triggerBody(map[string]any{"reuse_session": "maybe"}), "reuse_session must be true or false"},
		{"enqueue without reuse", triggerBody(map[string]any{"enqueue_messages": true}), "enqueue_messages and resuscitate_archived require reuse_session"},
		{"an unknown condition type", triggerBody(map[string]any{"trigger_conditions_attributes": []any{map[string]any{"condition_type": "telepathy", "configuration": map[string]any{}}}}), `unknown trigger_type "telepathy"`},
		{"a bad cron", triggerBody(map[string]any{"trigger_conditions_attributes": []any{map[string]any{"condition_type": "schedule", "configuration": map[string]any{"cron": "every tuesday"}}}}), `schedule cron "every tuesday"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/api/v1/triggers", c.body)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(r.body["message"]), c.want) {
				t.Fatalf("%d %s; want 422 saying %q", r.status, r.raw, c.want)
			}
		})
	}
	if after := e.do(t, http.MethodGet, "/api/v1/triggers?per_page=1", nil).body["pagination"].(map[string]any)["total_count"]; after != before {
		t.Fatalf("refused creates wrote triggers: %v → %v", before, after)
	}
}
