package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/session"
)

// result is a tools/call outcome.
type result struct {
	text    string
	isError bool
	reply   reply
}

// call runs tools/call on path and returns the text result; a JSON-RPC error fails the test.
// Header pairs override the well-behaved client's (a session token as X-API-Key, say).
func (e *env) call(t *testing.T, path, tool string, arguments map[string]any, headers ...string) result {
	t.Helper()
	r := e.post(t, path, rpc("tools/call", map[string]any{"name": tool, "arguments": arguments}), headers...)
	res, ok := r.body["result"].(map[string]any)
	if !ok {
		t.Fatalf("tools/call %s on %s: %d %s", tool, path, r.status, r.raw)
	}
	var text strings.Builder
	for _, c := range res["content"].([]any) {
		text.WriteString(c.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return result{text: text.String(), isError: isErr, reply: r}
}

// ok runs a call that must succeed.
func (e *env) ok(t *testing.T, path, tool string, arguments map[string]any) string {
	t.Helper()
	r := e.call(t, path, tool, arguments)
	if r.isError {
		t.Fatalf("%s %v: unexpected error result: %s", tool, arguments, r.text)
	}
	return r.text
}

// refused runs a call that must answer an isError result containing want.
func (e *env) refused(t *testing.T, path, tool string, arguments map[string]any, want string) string {
	t.Helper()
	r := e.call(t, path, tool, arguments)
	if !r.isError || !strings.Contains(r.text, want) {
		t.Fatalf("%s %v: want an error result containing %q, got isError=%v: %s", tool, arguments, want, r.isError, r.text)
	}
	return r.text
}

// fixture creates a session through the real store.
func (e *env) fixture(t *testing.T, edit func(*session.Session)) *session.Session {
	t.Helper()
	return graphtest.Session(t, e.store, edit)
}

func contains(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Fatalf("missing %q in:\n%s", w, text)
		}
	}
}

// metricsText is the server's /metrics page.
func (e *env) metricsText(t *testing.T) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/metrics", nil)
	return e.send(t, req).raw
}
