package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// tokenOf issues session s's capability token, as the runner does at a turn's claim.
func (e *env) tokenOf(t *testing.T, s map[string]any) string {
	t.Helper()
	tok, err := e.ops.IssueSessionToken(context.Background(), int64(s["id"].(float64)))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestASessionTokenCannotActAsAnotherSessionOverREST: with session A's token every REST route
// that declares a session (acting_session_id, parent_session_id) refuses one outside A and
// what A spawned, writing nothing; A's own id works, and the edge names the credential.
func TestASessionTokenCannotActAsAnotherSessionOverREST(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a, b, target := e.create(t, map[string]any{}), e.create(t, map[string]any{}), e.create(t, map[string]any{})
	as := []string{"X-API-Key", e.tokenOf(t, a)}
	queued := e.enqueue(t, "/api/v1/sessions/"+id(target), "queued earlier")
	notYours := fmt.Sprintf("acting_session_id #%s is neither this session (#%s) nor a session it spawned", id(b), id(a))
	for _, c := range []struct {
		method, path string
		body         map[string]any
		want         string
	}{
		{"POST", "/api/v1/sessions/" + id(target) + "/follow_up", map[string]any{"prompt": "p", "acting_session_id": b["id"]}, notYours},
		{"POST", "/api/v1/sessions/" + id(target) + "/enqueued_messages", map[string]any{"content": "c", "acting_session_id": b["id"]}, notYours},
		{"POST", fmt.Sprintf("/api/v1/sessions/%s/enqueued_messages/%v/interrupt", id(target), queued["id"]), map[string]any{"acting_session_id": b["id"]}, notYours},
		{"DELETE", "/api/v1/sessions/" + id(target) + "/uncle_links/" + id(a) + "?acting_session_id=" + id(b), nil, notYours},
		{"POST", "/api/v1/sessions", map[string]any{"agent_root": "zimmer", "prompt": "p", "parent_session_id": b["id"]},
			fmt.Sprintf("parent_session_id #%s is neither this session (#%s) nor a session it spawned", id(b), id(a))},
		{"POST", "/api/v1/sessions", map[string]any{"agent_root": "zimmer", "prompt": "p", "custom_metadata": map[string]any{"router_session_id": b["id"]}},
			fmt.Sprintf("parent_session_id #%s is neither this session (#%s) nor a session it spawned", id(b), id(a))},
		{"PATCH", "/api/v1/sessions/" + id(target), map[string]any{"custom_metadata": map[string]any{"router_session_id": b["id"]}},
			fmt.Sprintf("router_session_id #%s is neither this session (#%s) nor a session it spawned", id(b), id(a))},
	} {
		r := e.do(t, c.method, c.path, c.body, as...)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(r.body["message"]), c.want) {
			t.Errorf("%s %s with A's token: %d %s, want 422 %q", c.method, c.path, r.status, r.raw, c.want)
		}
	}
	if got := e.queueOf(t, "/api/v1/sessions/"+id(target)); len(got) != 1 {
		t.Fatalf("refused deliveries changed the queue: %v", got)
	}
	if strings.Contains(e.timeline(t, target), "Uncle edge recorded") {
		t.Fatalf("a refused call recorded an uncle edge:\n%s", e.timeline(t, target))
	}
	if r := e.do(t, "POST", "/api/v1/sessions/"+id(target)+"/follow_up", map[string]any{"prompt": "p", "acting_session_id": a["id"]}, as...); r.status >= 300 {
		t.Fatalf("acting as itself: %d %s", r.status, r.raw)
	}
	if want := fmt.Sprintf("(api_v1:sessions.follow_up (session token of #%s))", id(a)); !strings.Contains(e.timeline(t, target), want) {
		t.Fatalf("the edge's source does not name the token:\n%s", e.timeline(t, target))
	}
	if got := testutil.ToFloat64(e.m.Credentials.WithLabelValues("rest", "session_token")); got < 8 {
		t.Fatalf("calls counted under the session token: %v, want at least 8", got)
	}
}

// TestARevokedTokenIs401: archiving a session revokes its token on every surface.
func TestARevokedTokenIs401(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.create(t, map[string]any{})
	tok := e.tokenOf(t, s)
	if r := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil, "X-API-Key", tok); r.status != http.StatusOK {
		t.Fatalf("a live token: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/archive", nil); r.status != http.StatusOK {
		t.Fatalf("archive: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil, "Authorization", "Bearer "+tok); r.status != http.StatusUnauthorized || r.body["message"] != "Invalid or missing API key" {
		t.Fatalf("a revoked token: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", "/api/v1/sessions/"+id(s)+"/unarchive", nil); r.status != http.StatusOK {
		t.Fatalf("unarchive: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", "/api/v1/sessions/"+id(s), nil, "X-API-Key", tok); r.status != http.StatusUnauthorized {
		t.Fatalf("a revoked token after unarchive (the next turn issues a new one): %d %s", r.status, r.raw)
	}
}
