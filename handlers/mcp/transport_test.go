package mcp_test

import (
	"bytes"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

func TestEveryVerbAsksForTheKeyBeforeAnythingElse(t *testing.T) {
	t.Parallel()
	e := setup(t)
	keys := []struct {
		name    string
		headers []string
	}{
		{"no key", []string{"X-API-Key", ""}},
		{"wrong key", []string{"X-API-Key", "wrong-key-0123456789abcdef"}},
		{"wrong bearer", []string{"X-API-Key", "", "Authorization", "Bearer wrong-key-0123456789"}},
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		for _, k := range keys {
			t.Run(method+" with "+k.name, func(t *testing.T) {
				// A batch body would be a 400 and a GET a 405: the 401 must come first.
				req, _ := http.NewRequest(method, e.srv.URL+"/mcp?tool_groups=sessions", strings.NewReader(`[{"jsonrpc":"2.0"}]`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				req.Header.Set("X-API-Key", apiKey)
				r := e.send(t, req, k.headers...)
				if r.status != http.StatusUnauthorized || r.body["error"] != "Unauthorized" || r.body["message"] != "Invalid or missing API key" {
					t.Fatalf("want 401, got %d %s", r.status, r.raw)
				}
			})
		}
	}
}

func TestABearerTokenIsTheSameCredential(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.post(t, "/mcp", rpc("ping", nil), "X-API-Key", "", "Authorization", "Bearer "+apiKey)
	if r.status != http.StatusOK || r.body["result"] == nil {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
}

func TestGetAndDeleteAre405WithAllowPost(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		t.Run(method, func(t *testing.T) {
			req, _ := http.NewRequest(method, e.srv.URL+"/mcp", nil)
			req.Header.Set("X-API-Key", apiKey)
			req.Header.Set("Accept", "text/event-stream")
			r := e.send(t, req)
			if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
				t.Fatalf("want 405 with Allow: POST, got %d %v %s", r.status, r.header, r.raw)
			}
			if e := r.errorOf(); e == nil || e["code"] != float64(-32600) || r.body["jsonrpc"] != "2.0" {
				t.Fatalf("want a JSON-RPC -32600 body, got %s", r.raw)
			}
		})
	}
}

func TestTransportRejectionsAreJSONRPCErrorsWithNullID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		name    string
		body    string
		headers []string
		status  int
		code    float64
		message string
	}{
		{"batch body", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, -32600, "Invalid Request: JSON-RPC body must be a single request object"},
		{"empty batch", `[]`, nil, 400, -32600, "Invalid Request"},
		{"scalar body", `42`, nil, 400, -32600, "Invalid Request"},
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,`, nil, 400, -32700, "Parse error: Invalid JSON"},
		{"empty body", ``, nil, 400, -32700, "Parse error"},
		{"wrong content type", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Content-Type", "text/plain"}, 415, -32600, "Unsupported Media Type"},
		{"no Accept", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", ""}, 406, -32600, "Not Acceptable"},
		{"Accept without JSON", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Accept", "text/event-stream"}, 406, -32600, "Not Acceptable"},
		{"unsupported protocol version", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"MCP-Protocol-Version", "1999-01-01"}, 400, -32600,
			"Bad Request: Unsupported protocol version: 1999-01-01. Supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.post(t, "/mcp", c.body, c.headers...)
			err := r.errorOf()
			if r.status != c.status || err == nil || err["code"] != c.code || !strings.Contains(err["message"].(string), c.message) {
				t.Fatalf("want %d %v %q, got %d %s", c.status, c.code, c.message, r.status, r.raw)
			}
			if id, present := r.body["id"]; !present || id != nil {
				t.Fatalf("want id null, got %s", r.raw)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("want JSON, got %q", ct)
			}
		})
	}
}

func TestBodiesAreBoundedAtFourMiB(t *testing.T) {
	t.Parallel()
	e := setup(t)
	padded := func(size int) string {
		head, tail := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`, `"}}`
		return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
	}
	if r := e.post(t, "/mcp", padded(4<<20)); r.status != http.StatusOK || r.body["result"] == nil {
		t.Fatalf("a body of exactly 4 MiB must be served, got %d %.200s", r.status, r.raw)
	}
	r := e.post(t, "/mcp", padded(4<<20+1))
	if err := r.errorOf(); r.status != http.StatusRequestEntityTooLarge || err == nil || err["code"] != float64(-32600) {
		t.Fatalf("want 413 -32600, got %d %.300s", r.status, r.raw)
	}
	// A body whose length is not declared is bounded by what is actually read.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/mcp", struct{ *bytes.Reader }{bytes.NewReader([]byte(padded(5 << 20)))})
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-API-Key", apiKey)
	if r := e.send(t, req); r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked oversize body: want 413, got %d", r.status)
	}
}

func TestResponsesArePlainJSONWithoutASession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	init := rpc("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	r := e.post(t, "/mcp?tool_groups=sessions,health", init)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("initialize: %d %q %s", r.status, r.header.Get("Content-Type"), r.raw)
	}
	if sid := r.header.Get("Mcp-Session-Id"); sid != "" {
		t.Fatalf("a stateless server issued Mcp-Session-Id %q", sid)
	}
	res := r.body["result"].(map[string]any)
	if res["protocolVersion"] != "2025-06-18" || res["serverInfo"].(map[string]any)["name"] != "zimmer" {
		t.Fatalf("initialize result: %s", r.raw)
	}
	if !strings.HasSuffix(res["instructions"].(string), "Enabled tool groups: sessions, health.") {
		t.Fatalf("instructions: %v", res["instructions"])
	}
	// Any request works without initialize first, and none carries a session id either.
	r = e.post(t, "/mcp", rpc("tools/list", nil))
	if r.status != http.StatusOK || r.header.Get("Mcp-Session-Id") != "" || r.body["result"] == nil {
		t.Fatalf("tools/list: %d %v %s", r.status, r.header, r.raw)
	}
	if r := e.post(t, "/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted || r.raw != "" {
		t.Fatalf("a notification: want 202 with no body, got %d %q", r.status, r.raw)
	}
}

func TestUnknownMethodsAndToolsAreJSONRPCErrors(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		name string
		path string
		body map[string]any
		code float64
		data string
	}{
		{"unknown method", "/mcp", rpc("zimmer/nope", nil), -32601, "zimmer/nope"},
		{"prompts are not served", "/mcp", rpc("prompts/list", nil), -32601, "prompts/list"},
		{"unknown tool", "/mcp", rpc("tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}), -32602, "Tool not found: no_such_tool"},
		{"a tool outside the scope", "/mcp?tool_groups=self_session", rpc("tools/call", map[string]any{"name": "start_session", "arguments": map[string]any{}}), -32602, "Tool not found: start_session"},
		{"an opt-in tool on the default surface", "/mcp", rpc("tools/call", map[string]any{"name": "record_gate_decision", "arguments": map[string]any{}}), -32602, "Tool not found: record_gate_decision"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.post(t, c.path, c.body)
			err := r.errorOf()
			if r.status != http.StatusOK || err == nil || err["code"] != c.code || err["data"] != c.data {
				t.Fatalf("want 200 with %v %q, got %d %s", c.code, c.data, r.status, r.raw)
			}
			if r.body["id"] != float64(c.body["id"].(int64)) {
				t.Fatalf("the error must answer the request's id: %s", r.raw)
			}
		})
	}
}

func TestScopingIsReadFromTheURLNeverTheBody(t *testing.T) {
	t.Parallel()
	e := setup(t)
	body := rpc("tools/list", map[string]any{"tool_groups": "self_session"})
	body["tool_groups"] = "self_session"
	r := e.post(t, "/mcp?tool_groups=health_readonly", body)
	tools := r.body["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 3 {
		t.Fatalf("health_readonly has 3 tools whatever the body says; got %d: %s", len(tools), r.raw)
	}
}

// A plain tools/call (an id, and params of a name and arguments only) is answered by the endpoint
// itself; with a _meta, or any other parameter, it goes through mcp-go and its HTTP transport.
// Either way the client gets the same answer: the same status, content type and JSON-RPC body,
// result or error.
func TestAToolCallAnswersTheSameWithOrWithoutTheTransport(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := graphtest.Session(t, e.store, nil)
	for _, tc := range []struct {
		name   string
		params map[string]any
		is     string // what the answer must contain, so the comparison is not of two failures
	}{
		{"a result", map[string]any{"name": "get_session", "arguments": map[string]any{"id": s.ID}}, `"content"`},
		{"a tool error", map[string]any{"name": "get_session", "arguments": map[string]any{"id": s.ID + 1_000_000}}, `"isError":true`},
		{"malformed arguments", map[string]any{"name": "get_session", "arguments": "not an object"}, `"isError":true`},
		{"no arguments", map[string]any{"name": "get_session"}, `"isError":true`},
		{"null arguments", map[string]any{"name": "get_session", "arguments": nil}, `"isError":true`},
		{"a parameter beyond name and arguments", map[string]any{"name": "get_session", "arguments": map[string]any{"id": s.ID}, "extra": 1}, `"content"`},
		{"malformed parameters", map[string]any{"name": "get_session", "arguments": map[string]any{"id": s.ID}, "task": "not an object"}, `"error":{`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := e.post(t, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": tc.params})
			withMeta := map[string]any{"_meta": map[string]any{}}
			maps.Copy(withMeta, tc.params)
			transported := e.post(t, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": withMeta})
			if !strings.Contains(plain.raw, tc.is) {
				t.Fatalf("the answer lacks %s: %s", tc.is, plain.raw)
			}
			if plain.status != transported.status || plain.header.Get("Content-Type") != transported.header.Get("Content-Type") {
				t.Errorf("status %d %q without the transport, %d %q with it", plain.status, plain.header.Get("Content-Type"),
					transported.status, transported.header.Get("Content-Type"))
			}
			if !reflect.DeepEqual(plain.body, transported.body) {
				t.Errorf("the bodies differ:\nwithout the transport: %s\nwith it:               %s", plain.raw, transported.raw)
			}
		})
	}
}
