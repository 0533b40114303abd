package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func (e *env) uncleEdge(t *testing.T, senior, junior map[string]any) {
	t.Helper()
	res, err := e.store.RecordUncleEdge(context.Background(), int64(senior["id"].(float64)), int64(junior["id"].(float64)), "test")
	if err != nil || res != "created" {
		t.Fatalf("uncle edge: %v %v", res, err)
	}
}

func TestRemoveUncleLink(t *testing.T) {
	t.Parallel()
	e := setup(t)
	tests := []struct {
		name    string
		prepare func(j, u map[string]any)
		uncle   func(j, u map[string]any) string
		status  int
		message func(j, u map[string]any) string
	}{
		{"removes exactly the named edge", func(j, u map[string]any) { e.uncleEdge(t, u, j) },
			func(j, u map[string]any) string { return id(u) }, http.StatusNoContent, nil},
		{"a blank uncle is 422", nil, func(j, u map[string]any) string { return "%20" }, http.StatusUnprocessableEntity,
			func(j, u map[string]any) string { return "uncle_session_id is required." }},
		{"an unknown uncle is 404 and says so", nil, func(j, u map[string]any) string { return "not-a-session" }, http.StatusNotFound,
			func(j, u map[string]any) string {
				return fmt.Sprintf(`No session "not-a-session", so it cannot be an additional senior of session #%s.`, id(j))
			}},
		{"a missing edge is 404", nil, func(j, u map[string]any) string { return id(u) }, http.StatusNotFound,
			func(j, u map[string]any) string {
				return fmt.Sprintf("No uncle edge #%s → #%s: session #%s is not recorded as an additional senior of session #%s.", id(u), id(j), id(u), id(j))
			}},
		{"an edge pointing the other way is 404 with the direction hint", func(j, u map[string]any) { e.uncleEdge(t, j, u) },
			func(j, u map[string]any) string { return id(u) }, http.StatusNotFound,
			func(j, u map[string]any) string {
				return fmt.Sprintf("No uncle edge #%s → #%s: session #%s is not recorded as an additional senior of session #%s."+
					" The edge between them points the other way — #%s is senior to #%s. Remove that one by naming #%s as the session and #%s as the uncle.",
					id(u), id(j), id(u), id(j), id(j), id(u), id(u), id(j))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, u := e.create(t, map[string]any{}), e.create(t, map[string]any{})
			if tt.prepare != nil {
				tt.prepare(j, u)
			}
			r := e.do(t, "DELETE", "/api/v1/sessions/"+id(j)+"/uncle_links/"+tt.uncle(j, u)+"?acting_session_id="+id(u), nil)
			if r.status != tt.status {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
			if tt.message != nil && r.body["message"] != tt.message(j, u) {
				t.Fatalf("message %q\nwant    %q", r.body["message"], tt.message(j, u))
			}
		})
	}
	t.Run("removal is logged on both timelines naming the actor", func(t *testing.T) {
		j, u := e.create(t, map[string]any{}), e.create(t, map[string]any{})
		e.uncleEdge(t, u, j)
		e.do(t, "DELETE", "/api/v1/sessions/"+id(j)+"/uncle_links/"+id(u)+"?acting_session_id="+id(u), nil)
		logs, _ := e.store.Logs(context.Background(), int64(j["id"].(float64)), "", 0, 10)
		last := logs[len(logs)-1].Content
		want := fmt.Sprintf("Uncle edge removed: #%s is no longer linked as an additional senior of #%s.", id(u), id(j))
		if len(last) < len(want) || last[:len(want)] != want || !strings.Contains(last, "by test and detached by session #"+id(u)+" via the REST API (api_v1:sessions.uncle_links.destroy).") {
			t.Fatalf("timeline line %q", last)
		}
	})
	t.Run("an unknown junior is 404", func(t *testing.T) {
		if r := e.do(t, "DELETE", "/api/v1/sessions/999999999999/uncle_links/1", nil); r.status != http.StatusNotFound {
			t.Fatalf("got %d", r.status)
		}
	})
}

func TestShowCarriesTheSessionHierarchyBesideTheSession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	router := e.create(t, map[string]any{"agent_root": "zimmer-router", "title": "Route it"})
	worker := e.create(t, map[string]any{"agent_root": "zimmer", "title": "Do it", "parent_session_id": router["id"]})
	other := e.create(t, map[string]any{"title": "Elsewhere"})
	e.uncleEdge(t, other, worker)
	r := e.do(t, "GET", "/api/v1/sessions/"+id(worker), nil)
	h, ok := r.body["session_hierarchy"].(map[string]any)
	if !ok {
		t.Fatalf("no session_hierarchy: %s", r.raw)
	}
	if _, inside := r.session(t)["session_hierarchy"]; inside {
		t.Fatal("session_hierarchy must sit beside session, never inside it")
	}
	wantRoots := fmt.Sprintf("[%s %s]", id(router), id(other))
	if h["origin_session_id"] != router["id"] || fmt.Sprint(h["root_session_ids"]) != wantRoots ||
		h["truncated"] != false || h["truncation_reason"] != nil {
		t.Fatalf("hierarchy header %v", h)
	}
	nodes := h["nodes"].([]any)
	if len(nodes) != 3 {
		t.Fatalf("nodes %v", nodes)
	}
	w := nodes[2].(map[string]any)
	if w["id"] != worker["id"] || w["current"] != true || w["depth"] != float64(1) || w["agent_root"] != "zimmer" ||
		w["parent_session_id"] != router["id"] || fmt.Sprint(w["uncle_session_ids"]) != fmt.Sprintf("[%v]", other["id"]) ||
		w["genesis"] != "api" || w["priority_class"] != "spot" || w["title"] != "Do it" || w["status"] != "waiting" {
		t.Fatalf("worker node %v", w)
	}
}
