package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// statements records the name of every statement a store runs.
type statements struct {
	mu    sync.Mutex
	names []string
}

func (s *statements) ObserveStatement(name string, _ time.Duration, _ error) {
	s.mu.Lock()
	s.names = append(s.names, name)
	s.mu.Unlock()
}

func (s *statements) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.names
	s.names = nil
	return out
}

// Reading a session is one statement on every surface: GET /sessions/:id and MCP get_session
// read the session, its hierarchy, the human messages in it, the head of its queue, its
// category and its cached status summary together, and that same read is what finds an
// unknown id missing.
func TestASessionReadIsOneStatement(t *testing.T) {
	ctx := context.Background()
	seen := &statements{}
	opts := graphtest.Neo4jOptions()
	opts.Observer = seen
	store, err := graph.Open(ctx, opts, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close(ctx) })
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	ops := orchestrator.New(orchestrator.Deps{Store: store, Catalog: cat, Log: graphtest.Logger()})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey}}))
	t.Cleanup(srv.Close)
	id := graphtest.Session(t, store, nil).ID
	category, err := store.CreateCategory(ctx, session.Category{Name: graphtest.Unique(t, "Reads")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.DeleteCategory(ctx, category.ID) })
	filed := graphtest.Session(t, store, func(d *session.Session) { d.CategoryID = &category.ID }).ID
	send := func(t *testing.T, method, path string, body any) (int, string) {
		var r io.Reader
		if body != nil {
			data, _ := json.Marshal(body)
			r = bytes.NewReader(data)
		}
		req, _ := http.NewRequest(method, srv.URL+path, r)
		req.Header.Set("X-API-Key", apiKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	getSession := func(id int64) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "get_session", "arguments": map[string]any{"id": id}}}
	}
	const missing = 999999999999
	tests := []struct {
		name, method, path string
		body               any
		status             int
		says               string
	}{
		{name: "GET /sessions/:id", method: http.MethodGet, path: fmt.Sprintf("/api/v1/sessions/%d", id), status: http.StatusOK, says: `"session_hierarchy"`},
		{name: "GET /sessions/:id of a session in a category", method: http.MethodGet, path: fmt.Sprintf("/api/v1/sessions/%d", filed), status: http.StatusOK,
			says: fmt.Sprintf(`"category":{"id":%d,"name":%q`, category.ID, category.Name)},
		{name: "GET /sessions/:id of an unknown id", method: http.MethodGet, path: fmt.Sprintf("/api/v1/sessions/%d", int64(missing)), status: http.StatusNotFound, says: "Session not found"},
		{name: "MCP get_session", method: http.MethodPost, path: "/mcp", body: getSession(id), status: http.StatusOK, says: "Queued Messages"},
		{name: "MCP get_session of a session in a category", method: http.MethodPost, path: "/mcp", body: getSession(filed), status: http.StatusOK,
			says: "Category:** " + category.Name},
		{name: "MCP get_session of an unknown id", method: http.MethodPost, path: "/mcp", body: getSession(missing), status: http.StatusOK, says: fmt.Sprintf("Session not found: %d", int64(missing))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen.take()
			status, body := send(t, tt.method, tt.path, tt.body)
			if status != tt.status || !strings.Contains(body, tt.says) {
				t.Fatalf("HTTP %d, want %d saying %q: %s", status, tt.status, tt.says, body)
			}
			// The genesis class overrides are re-read at most every two seconds, whatever reads
			// sessions; a slow machine's request may fall on that refresh. It is not the read's.
			got := slices.DeleteFunc(seen.take(), func(n string) bool { return n == "get_spot_policy" })
			if want := []string{"session_provenance"}; !slices.Equal(got, want) {
				t.Fatalf("statements %v, want %v", got, want)
			}
		})
	}
}
