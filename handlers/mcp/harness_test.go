package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
)

const apiKey = "mcp-test-key-0123456789abcdef"

// redisDB is this package's own Redis database, so its queues are its own.
const redisDB = 6

type env struct {
	srv   *httptest.Server
	store *graph.Store
	queue *tasks.Queue
	ops   *orchestrator.Service
	// dataDir is where the service reads transcripts: transcript.Path(dataDir, id).
	dataDir string
}

func setup(t *testing.T) *env {
	t.Helper()
	o := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey}}))
	t.Cleanup(srv.Close)
	return &env{srv: srv, store: o.Store, queue: o.Queue, ops: o.Ops, dataDir: o.DataDir}
}

// reply is one raw HTTP exchange with /mcp.
type reply struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

var rpcID atomic.Int64

// post sends body (a string is sent verbatim) to path with the key and the headers a
// well-behaved MCP client sends; extra header pairs override them ("" deletes).
func (e *env) post(t *testing.T, path string, body any, headers ...string) reply {
	t.Helper()
	wellBehaved := []string{"Accept", "application/json, text/event-stream", "X-API-Key", apiKey}
	r := handlerstest.Do(t, http.DefaultClient, http.MethodPost, e.srv.URL+path, body, append(wellBehaved, headers...)...)
	return reply{status: r.Status, header: r.Header, raw: r.Raw, body: r.Body}
}

// send sends a hand-built request; header pairs as for post.
func (e *env) send(t *testing.T, req *http.Request, headers ...string) reply {
	t.Helper()
	r := handlerstest.Send(t, http.DefaultClient, req, headers...)
	return reply{status: r.Status, header: r.Header, raw: r.Raw, body: r.Body}
}

// rpc is one JSON-RPC request.
func rpc(method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

// errorOf is the JSON-RPC error object of a reply, nil when there is none.
func (r reply) errorOf() map[string]any {
	e, _ := r.body["error"].(map[string]any)
	return e
}

// tools lists the tool names a URL's connection is given, in order.
func (e *env) tools(t *testing.T, path string) []string {
	t.Helper()
	r := e.post(t, path, rpc("tools/list", nil))
	result, ok := r.body["result"].(map[string]any)
	if !ok {
		t.Fatalf("tools/list on %s: %d %s", path, r.status, r.raw)
	}
	var names []string
	for _, tool := range result["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

// toolDef is one tool of a URL's tools/list.
func (e *env) toolDef(t *testing.T, path, name string) map[string]any {
	t.Helper()
	r := e.post(t, path, rpc("tools/list", nil))
	for _, tool := range r.body["result"].(map[string]any)["tools"].([]any) {
		if m := tool.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("%s has no tool %s", path, name)
	return nil
}
