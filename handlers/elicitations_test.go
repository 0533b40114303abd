package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

func TestElicitationsAreAskedAndPolledWithoutAKeyAndAnsweredWithOne(t *testing.T) {
	e := setup(t)
	running := graphtest.Session(t, e.store, func(s *session.Session) {
		s.Status = session.StatusRunning
		job := "elicitation-test-job"
		s.RunningJobID = &job
	})
	request := graphtest.Unique(t, "req")
	ask := map[string]any{"_meta": map[string]any{"com.pulsemcp/request-id": request}, "message": "Which branch?",
		"requestedSchema": map[string]any{"type": "object"}, "session_id": running.ID}
	none := []string{"X-Unused", "x"} // no key
	if r := e.do(t, "POST", "/api/v1/elicitations", ask, none...); r.status != http.StatusCreated || r.body["status"] != "pending" {
		t.Fatalf("ask without a key: %d %s", r.status, r.raw)
	}
	s, err := e.store.GetSession(t.Context(), running.ID)
	if err != nil || s.Status != session.StatusNeedsInput || !s.Flag(session.MetaBlockedOnElicitation) {
		t.Fatalf("the running session is blocked on it: %+v %v", s, err)
	}
	if r := e.do(t, "GET", "/api/v1/elicitations/"+request, nil, none...); r.status != http.StatusOK || r.body["action"] != "pending" {
		t.Fatalf("poll: %d %s", r.status, r.raw)
	}
	answer := map[string]any{"action_type": "accept", "content": map[string]any{"branch": "main"}}
	if r := e.do(t, "PATCH", "/api/v1/elicitations/"+request+"/respond", answer, none...); r.status != http.StatusUnauthorized {
		t.Fatalf("answering needs the key: %d", r.status)
	}
	if r := e.do(t, "PATCH", "/api/v1/elicitations/"+request+"/respond", answer); r.status != http.StatusOK || r.body["action"] != "accept" {
		t.Fatalf("respond: %d %s", r.status, r.raw)
	}
	r := e.do(t, "GET", "/api/v1/elicitations/"+request, nil, none...)
	meta, _ := r.body["_meta"].(map[string]any)
	if r.body["action"] != "accept" || !strings.Contains(r.raw, `"content":{"branch":"main"}`) || meta["com.pulsemcp/responded-at"] == nil {
		t.Fatalf("the poller reads the answer: %s", r.raw)
	}
	if s, _ := e.store.GetSession(t.Context(), running.ID); s.Status != session.StatusRunning || s.Flag(session.MetaBlockedOnElicitation) {
		t.Fatalf("the answer unblocks the turn: %s %v", s.Status, s.Metadata)
	}
	refusals := []struct {
		method, path string
		body         any
		status       int
		want         string
	}{
		{"PATCH", "/api/v1/elicitations/" + request + "/respond", answer, http.StatusUnprocessableEntity, "Elicitation has already been resolved"},
		{"PATCH", "/api/v1/elicitations/no-such-request/respond", answer, http.StatusNotFound, "Elicitation not found for: no-such-request"},
		{"PATCH", "/api/v1/elicitations/" + request + "/respond", map[string]any{"action_type": "maybe"}, http.StatusUnprocessableEntity, "action_type must be one of accept, decline, cancel"},
		{"POST", "/api/v1/elicitations", ask, http.StatusUnprocessableEntity, "already exists"},
		{"POST", "/api/v1/elicitations", map[string]any{"message": "m"}, http.StatusUnprocessableEntity, "request id"},
		{"GET", "/api/v1/elicitations/no-such-request", nil, http.StatusNotFound, "Elicitation not found for: no-such-request"},
	}
	for _, c := range refusals {
		got := e.do(t, c.method, c.path, c.body, none...)
		if c.method == "PATCH" {
			got = e.do(t, c.method, c.path, c.body)
		}
		if got.status != c.status || !strings.Contains(got.raw, c.want) {
			t.Errorf("%s %s: %d %s, want %d %q", c.method, c.path, got.status, got.raw, c.status, c.want)
		}
	}
}
