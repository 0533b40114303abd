package handlers_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestTheSpotPolicyAndQueueOverREST changes the package's spot policy, so it puts it back.
func TestTheSpotPolicyAndQueueOverREST(t *testing.T) {
	e := setup(t)
	t.Cleanup(func() {
		e.do(t, "PATCH", "/api/v1/spot_policy", map[string]any{"enabled": false, "five_hour_threshold_pct": 80,
			"weekly_threshold_pct": 80, "max_concurrent_sessions": 10, "genesis_class_overrides": map[string]any{}})
	})
	for _, bad := range []map[string]any{
		{"max_concurrent_sessions": 0},
		{"five_hour_threshold_pct": 101},
		{"genesis_class_overrides": map[string]any{"slack": "spot"}},
		{"genesis_class_overrides": map[string]any{"api": "sometimes"}},
	} {
		if r := e.do(t, "PATCH", "/api/v1/spot_policy", bad); r.status != http.StatusUnprocessableEntity {
			t.Fatalf("%v: want 422, got %d %s", bad, r.status, r.raw)
		}
	}
	r := e.do(t, "PATCH", "/api/v1/spot_policy", map[string]any{"enabled": true, "max_concurrent_sessions": 4,
		"genesis_class_overrides": map[string]any{"api": "priority"}})
	p, _ := r.body["spot_policy"].(map[string]any)
	if r.status != http.StatusOK || p["enabled"] != true || p["max_concurrent_sessions"] != float64(4) {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if classes, _ := p["genesis_classes"].(map[string]any); classes["api"] != "priority" || classes["github_issue"] != "spot" {
		t.Fatalf("the override moves api, nothing else: %v", classes)
	}
	s := e.create(t, map[string]any{})
	if got := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil).session(t); got["priority_class"] != "priority" {
		t.Fatalf("a REST session (api) now derives priority: %v", got["priority_class"])
	}
	r = e.do(t, "GET", "/api/v1/spot_policy", nil)
	pools, _ := r.body["pools"].([]any)
	if r.status != http.StatusOK || len(pools) != 3 || r.body["queue_length"] == nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if first, _ := pools[0].(map[string]any); first["runtime"] != "claude_code" || first["reason"] == "" {
		t.Fatalf("each pool says its decision and why: %v", first)
	}
	if r := e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/start_now", nil); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a session not in the spot queue cannot start now: %d %s", r.status, r.raw)
	}
	r = e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/demote_to_spot", nil)
	if got := r.session(t); r.status != http.StatusOK || got["priority_class"] != "spot" || got["scheduling_class"] != "spot" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	// The queue pages like every other list: out-of-range values fall back to the shared defaults.
	for query, want := range map[string]string{"per_page=5": "1/5", "page=0&per_page=500": "1/25", "page=3&per_page=100": "3/100"} {
		r := e.do(t, "GET", "/api/v1/spot_queue?"+query, nil)
		p, _ := r.body["pagination"].(map[string]any)
		if got := fmt.Sprintf("%v/%v", p["page"], p["per_page"]); r.status != http.StatusOK || got != want {
			t.Fatalf("%s: page/per_page %s, want %s (%d %s)", query, got, want, r.status, r.raw)
		}
	}
}
