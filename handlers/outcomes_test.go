package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

func TestOutcomeAnalysesOverREST(t *testing.T) {
	e := setup(t)
	root := graphtest.Unique(t, "outcome-root")
	s := graphtest.Session(t, e.store, func(d *session.Session) {
		d.Status = session.StatusArchived
		d.Metadata = map[string]any{"agent_root_key": root}
	})
	tree := map[string]any{"trigger": map[string]any{"kind": "New", "source": "user"}, "goal": map[string]any{"text": "t", "kind": "Plan"},
		"outcome": map[string]any{"kind": "Failure", "explanation": "red"}, "meta": map[string]any{"pr": 12}}
	r := e.do(t, "POST", "/api/v1/outcome_analyses", map[string]any{"session_id": s.ID, "root": tree, "notes": "first look"})
	if r.status != http.StatusCreated || r.body["superseded_previous"] != false {
		t.Fatalf("save: %d %s", r.status, r.raw)
	}
	r = e.do(t, "POST", "/api/v1/outcome_analyses", map[string]any{"session_id": fmt.Sprint(s.ID), "root": tree})
	if r.status != http.StatusCreated || r.body["superseded_previous"] != true {
		t.Fatalf("re-save: %d %s", r.status, r.raw)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	r = e.do(t, "GET", "/api/v1/outcome_analyses?outcome=Failure&from="+today+"&to="+today+"&agent_root="+root, nil)
	list, _ := r.body["outcome_analyses"].([]any)
	if r.status != http.StatusOK || len(list) != 1 || strings.Contains(r.raw, `"root":`) {
		t.Fatalf("the list holds the current analysis only, without its tree: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", "/api/v1/outcome_analyses?outcome=Success&agent_root="+root, nil); strings.Contains(r.raw, root) {
		t.Fatalf("the outcome filter: %s", r.raw)
	}
	r = e.do(t, "GET", fmt.Sprintf("/api/v1/outcome_analyses/%d", s.ID), nil)
	got, _ := r.body["outcome_analysis"].(map[string]any)
	if r.status != http.StatusOK || got["root"].(map[string]any)["id"] != "S0" || got["failures"] != float64(1) {
		t.Fatalf("show: %d %s", r.status, r.raw)
	}
	refusals := []struct {
		method, path string
		body         any
		status       int
		want         string
	}{
		{"POST", "/api/v1/outcome_analyses", map[string]any{"session_id": s.ID, "root": map[string]any{}}, http.StatusUnprocessableEntity, "The Segment tree was rejected and nothing was saved"},
		{"POST", "/api/v1/outcome_analyses", map[string]any{"root": tree}, http.StatusUnprocessableEntity, "session_id is required"},
		{"POST", "/api/v1/outcome_analyses", map[string]any{"session_id": s.ID, "root": "x"}, http.StatusUnprocessableEntity, "root must be a JSON object"},
		{"GET", "/api/v1/outcome_analyses?from=yesterday", nil, http.StatusUnprocessableEntity, "from must be a date, YYYY-MM-DD"},
		{"GET", "/api/v1/outcome_analyses/999999999", nil, http.StatusNotFound, "Session not found"},
	}
	for _, c := range refusals {
		got := e.do(t, c.method, c.path, c.body)
		if got.status != c.status || !strings.Contains(got.raw, c.want) {
			t.Errorf("%s %s: %d %s, want %d %q", c.method, c.path, got.status, got.raw, c.status, c.want)
		}
	}
}
