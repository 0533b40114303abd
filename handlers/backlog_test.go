package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
)

// backlogServer is the API with the work backlog to itself, emptied.
func backlogServer(t *testing.T) *env {
	t.Helper()
	o := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	orchestratortest.ExclusiveBacklog(t, o)
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey}}))
	t.Cleanup(srv.Close)
	return &env{srv: srv, store: o.Store, queue: o.Queue}
}

func itemOf(t *testing.T, r response) map[string]any {
	t.Helper()
	it, ok := r.body["item"].(map[string]any)
	if !ok {
		t.Fatalf("no item in %d %s", r.status, r.raw)
	}
	return it
}

func TestTheBacklogControllerHoldsTheHumansLevers(t *testing.T) {
	e := backlogServer(t)
	add := func(n int, band string) string {
		r := e.do(t, "POST", "/api/v1/backlog", map[string]any{"issue_url": fmt.Sprintf("https://github.com/x/y/issues/%d", n), "band": band})
		if r.status != http.StatusCreated {
			t.Fatalf("append: %d %s", r.status, r.raw)
		}
		return fmt.Sprint(itemOf(t, r)["id"])
	}
	a, b, c := add(1, "normal"), add(2, "normal"), add(3, "urgent")
	order := func() string {
		r := e.do(t, "GET", "/api/v1/backlog", nil)
		var ids []string
		for i, raw := range r.body["items"].([]any) {
			it := raw.(map[string]any)
			if it["position"] != float64(i+1) {
				t.Fatalf("positions are 1..n: %s", r.raw)
			}
			ids = append(ids, fmt.Sprint(it["id"]))
		}
		return strings.Join(ids, " ")
	}
	if got, want := order(), strings.Join([]string{c, a, b}, " "); got != want {
		t.Fatalf("band placement: %s, want %s", got, want)
	}
	if r := e.do(t, "PATCH", "/api/v1/backlog/"+b, map[string]any{"position": 1, "pinned": true}); r.status != http.StatusOK || itemOf(t, r)["pinned"] != true {
		t.Fatalf("place and pin: %d %s", r.status, r.raw)
	}
	if got, want := order(), strings.Join([]string{b, c, a}, " "); got != want {
		t.Fatalf("after placing: %s, want %s", got, want)
	}
	refusals := []struct {
		method, path string
		body         any
		status       int
		want         string
	}{
		{"DELETE", "/api/v1/backlog/" + a, map[string]any{}, http.StatusUnprocessableEntity, "reason can't be blank"},
		{"PATCH", "/api/v1/backlog/" + a, map[string]any{}, http.StatusUnprocessableEntity, "provide pinned and/or position"},
		{"PATCH", "/api/v1/backlog/" + a, map[string]any{"pinned": "yes"}, http.StatusUnprocessableEntity, "pinned must be"},
		{"PATCH", "/api/v1/backlog/" + a, map[string]any{"position": 0}, http.StatusUnprocessableEntity, "position must be 1 or more"},
		{"POST", "/api/v1/backlog/99999999/start", nil, http.StatusNotFound, "is not on the backlog"},
		{"PATCH", "/api/v1/backlog/abc", map[string]any{"pinned": true}, http.StatusNotFound, "Backlog item not found: abc"},
		{"POST", "/api/v1/backlog", map[string]any{"issue_url": "https://github.com/x/y/issues/1"}, http.StatusUnprocessableEntity, "Already on the backlog"},
	}
	for _, r := range refusals {
		got := e.do(t, r.method, r.path, r.body)
		if got.status != r.status || !strings.Contains(got.raw, r.want) {
			t.Errorf("%s %s: %d %s, want %d %q", r.method, r.path, got.status, got.raw, r.status, r.want)
		}
	}
	if r := e.do(t, "DELETE", "/api/v1/backlog/"+a, map[string]any{"reason": "not needed any more"}); r.status != http.StatusOK ||
		itemOf(t, r)["removed_reason"] != "not needed any more (by the REST API)" {
		t.Fatalf("remove: %d %s", r.status, r.raw)
	}
	r := e.do(t, "POST", "/api/v1/backlog/"+c+"/start", nil)
	if r.status != http.StatusCreated || r.session(t)["priority_class"] != "priority" || itemOf(t, r)["status"] != "started" {
		t.Fatalf("start as priority: %d %s", r.status, r.raw)
	}
	if got := order(); got != b {
		t.Fatalf("left: %s", got)
	}
}
