package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// The browser is the one writer of human_feedback: MCP scrubs it, REST has no route for it.
func TestGateFeedbackIsWrittenOnlyOnTheGateDecisionsPage(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	surface := graphtest.Unique(t, "surface")
	status, body := h.postJSON(t, http.MethodPost, "/mcp?tool_groups=gate_decisions", map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "record_gate_decision", "arguments": map[string]any{"surface": surface, "decision": "hold"}}})
	if status != http.StatusOK || body["result"] == nil {
		t.Fatalf("record: %d %v", status, body)
	}
	text := fmt.Sprint(body["result"])
	id := strings.Fields(strings.SplitN(text, "**Decision ID:** ", 2)[1])[0]

	path := "/gate_decisions/" + id + "/feedback"
	if p := h.request(t, http.MethodPost, path, url.Values{"feedback": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("without the form token: %d", p.status)
	}
	token := h.token(t)
	if p := h.request(t, http.MethodPost, path, url.Values{"csrf_token": {token}, "feedback": {" "}}, "Origin", h.srv.URL); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("blank feedback: %d %s", p.status, p.body)
	}
	if p := h.request(t, http.MethodPost, "/gate_decisions/999999999/feedback", url.Values{"csrf_token": {token}, "feedback": {"x"}}, "Origin", h.srv.URL); p.status != http.StatusNotFound {
		t.Fatalf("an unknown decision: %d %s", p.status, p.body)
	}
	page := h.request(t, http.MethodGet, "/gate_decisions?surface="+url.QueryEscape(surface), nil)
	if strings.Contains(page.body, "forged") || strings.Contains(page.body, "<strong>Your feedback:</strong>") {
		t.Fatalf("a refused post wrote feedback: %s", page.body)
	}
	form := url.Values{"csrf_token": {token}, "feedback": {"Should have passed: a known flake."}}
	if p := h.request(t, http.MethodPost, path, form, "Origin", h.srv.URL); p.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	page = h.request(t, http.MethodGet, "/gate_decisions?surface="+url.QueryEscape(surface), nil)
	if !strings.Contains(page.body, "<pre>Should have passed: a known flake.</pre>") || !strings.Contains(page.body, "#"+id+" · hold on "+surface) {
		t.Fatalf("the page shows the feedback: %s", page.body)
	}
}
