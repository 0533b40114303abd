package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// readinessCatalog is a catalog folder of the two contract files alone, with a server in each
// state a local check can tell; everything else comes from the built-in catalog.
func readinessCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"roots.json": `{"team": {"url": "file:///tmp/repo"}}`,
		"mcp.json": `{
		  "works": {"title": "Works", "description": "Starts.", "command": "node", "startup_timeout_sec": 20, "default_in_roots": ["team"]},
		  "needs-token": {"command": "node", "env": {"T": "${CATALOG_TEST_TOKEN}"}, "default_in_roots": ["team"]},
		  "has-token": {"command": "node", "env": {"T": "${CATALOG_TEST_SET}"}},
		  "declared": {"command": "node", "unavailable": "Accepts only\n   static tokens.", "startup_timeout_sec": 700},
		  "oauth-remote": {"type": "streamable-http", "url": "https://example.invalid/mcp", "oauth": {"client_id": "c"}}
		}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readinessVariables() catalog.Variables {
	return catalog.Variables{Env: func(k string) (string, bool) { return "set", k == "CATALOG_TEST_SET" }}
}

func setupCatalog(t *testing.T) (*env, *graph.Store) {
	t.Helper()
	o := orchestratortest.New(t, orchestratortest.Options{RedisURL: graphtest.RedisURL(redisDB), CatalogDir: readinessCatalog(t),
		Variables: readinessVariables()})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey}}))
	t.Cleanup(srv.Close)
	return &env{srv: srv, store: o.Store, queue: o.Queue}, o.Store
}

func TestMCPServersCarryReadinessAndTheAcceptedStartupBudget(t *testing.T) {
	e, _ := setupCatalog(t)
	for _, path := range []string{"/api/v1/mcp_servers", "/api/v1/configs"} {
		r := e.do(t, "GET", path, nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, r.status, r.raw)
		}
		byName := map[string]map[string]any{}
		for _, s := range r.body["mcp_servers"].([]any) {
			byName[s.(map[string]any)["name"].(string)] = s.(map[string]any)
		}
		tests := []struct {
			name, state string
			unavailable bool
			reason      any
			timeout     any
		}{
			{"works", "no_credential_required", false, nil, float64(20)},
			{"has-token", "ready", false, nil, nil},
			{"needs-token", "missing_configuration", true, "`CATALOG_TEST_TOKEN` unresolved", nil},
			{"declared", "declared_unavailable", true, "Accepts only static tokens.", nil},
			{"oauth-remote", "needs_authorization", true, "OAuth authorization not completed (set ZIMMER_SECRET_KEY so Zimmer can store OAuth credentials)", nil},
		}
		for _, tt := range tests {
			s := byName[tt.name]
			if s["state"] != tt.state || s["unavailable"] != tt.unavailable || s["unavailable_reason"] != tt.reason ||
				s["startup_timeout_sec"] != tt.timeout {
				t.Errorf("%s %s: got %v", path, tt.name, s)
			}
		}
		if len(byName) != len(tests) || byName["works"]["title"] != "Works" || byName["works"]["description"] != "Starts." {
			t.Errorf("%s: every catalog server with its title and description: %v", path, byName)
		}
	}

	r := e.do(t, "GET", "/api/v1/configs", nil)
	roots := r.body["agent_roots"].([]any)
	if len(roots) != 1 || !strings.Contains(compactJSON(roots[0]), `"default_mcp_servers":["needs-token","works"]`) {
		t.Fatalf("the folder's roots with their computed defaults: %v", roots)
	}
	models := r.body["runtime_models"].(map[string]any)
	if models["claude_code"].(map[string]any)["default"] != "opus" || len(r.body["goals"].([]any)) == 0 {
		t.Fatalf("runtimes and goals the folder lacks come from the built-in catalog: %v %v", models, r.body["goals"])
	}
}

func TestCreatingASessionWithAServerThatCannotStartWarnsAndLogsIt(t *testing.T) {
	e, store := setupCatalog(t)
	tests := []struct {
		name string
		body map[string]any
		want string // "" is no warnings key at all
	}{
		{"root defaults inherited without naming them", map[string]any{"agent_root": "team", "prompt": "go"},
			"Zimmer cannot start MCP server(s) needs-token (`CATALOG_TEST_TOKEN` unresolved) right now. The session was created anyway, but preparing it is expected to fail outright until the missing value is set; see /connectors."},
		{"a declared-unavailable server", map[string]any{"agent_root": "team", "mcp_servers": []string{"works", "declared"}},
			"Zimmer cannot start MCP server(s) declared (Accepts only static tokens.) right now. The session was created anyway, but the session will run without those tools; see /connectors."},
		{"an OAuth server", map[string]any{"agent_root": "team", "mcp_servers": []string{"oauth-remote", "declared"}},
			"but it will park for OAuth authorization before the agent runs"},
		{"every server starts", map[string]any{"agent_root": "team", "mcp_servers": []string{"works", "has-token"}}, ""},
		{"an explicit empty list", map[string]any{"agent_root": "team", "mcp_servers": []string{}}, ""},
	}
	for _, tt := range tests {
		r := e.do(t, "POST", "/api/v1/sessions", tt.body)
		if r.status != http.StatusCreated {
			t.Fatalf("%s: warned, never refused: %d %s", tt.name, r.status, r.raw)
		}
		warnings, has := r.body["warnings"].([]any)
		if tt.want == "" {
			if _, present := r.body["warnings"]; present {
				t.Errorf("%s: no warnings key when every server starts: %v", tt.name, r.body["warnings"])
			}
			continue
		}
		if !has || len(warnings) != 1 || !strings.Contains(warnings[0].(string), tt.want) {
			t.Errorf("%s: warnings %v, want %q", tt.name, r.body["warnings"], tt.want)
			continue
		}
		logs, err := store.Logs(context.Background(), int64(r.session(t)["id"].(float64)), session.LogWarning, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(logs) != 1 || logs[0].Content != warnings[0] {
			t.Errorf("%s: the warning is in the session's log at warning level: %v", tt.name, logs)
		}
	}
}

func TestPatchMCPServersReplacesTheSessionsList(t *testing.T) {
	e, _ := setupCatalog(t)
	s := e.create(t, map[string]any{"agent_root": "team"})
	path := "/api/v1/sessions/" + id(s) + "/mcp_servers"

	r := e.do(t, "PATCH", path, map[string]any{"mcp_servers": []string{"declared", "works", "works"}})
	if r.status != http.StatusOK || compactJSON(r.session(t)["mcp_servers"]) != `["declared","works"]` ||
		!strings.Contains(r.body["message"].(string), "next turn") {
		t.Fatalf("replace semantics, repeats dropped: %d %s", r.status, r.raw)
	}
	r = e.do(t, "PATCH", path, map[string]any{"mcp_servers": []string{}})
	if r.status != http.StatusOK || compactJSON(r.session(t)["mcp_servers"]) != `[]` {
		t.Fatalf("[] clears: %d %s", r.status, r.raw)
	}

	tooMany := make([]string, 51)
	for i := range tooMany {
		tooMany[i] = "s" + strings.Repeat("x", i)
	}
	for _, bad := range []struct {
		body any
		want string
	}{
		{map[string]any{"mcp_servers": "works"}, "mcp_servers must be an array"},
		{map[string]any{}, "mcp_servers must be an array"},
		{map[string]any{"mcp_servers": []string{"works", "ghost"}}, "ghost. Valid MCP servers: declared, has-token, needs-token, oauth-remote, works"},
		{map[string]any{"mcp_servers": tooMany}, "Maximum 50 MCP servers"},
	} {
		r := e.do(t, "PATCH", path, bad.body)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, bad.want) {
			t.Errorf("%v: got %d %s, want 422 with %q", bad.body, r.status, r.raw, bad.want)
		}
	}
	if r := e.do(t, "PATCH", "/api/v1/sessions/999999999/mcp_servers", map[string]any{"mcp_servers": []string{}}); r.status != http.StatusNotFound {
		t.Fatalf("an unknown session is 404: %d", r.status)
	}
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func TestTheNewSessionFormWarnsBesideTheCreatedNotice(t *testing.T) {
	h := setupHumans(t, humansOpts{catalogDir: readinessCatalog(t), variables: readinessVariables()})
	created := h.post(t, "/sessions", url.Values{"agent_root": {"team"}, "prompt": {"Build it"}})
	id := redirected(t, created)
	p := h.request(t, http.MethodGet, created.location, nil)
	for _, want := range []string{"Session created.", `role="alert"`, "needs-token",
		"preparing it is expected to fail outright until the missing value is set"} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("the page after creating lacks %q:\n%s", want, p.body)
		}
	}
	if later := h.request(t, http.MethodGet, "/sessions/"+strconv.FormatInt(id, 10), nil); strings.Contains(later.body, `role="alert"`) {
		t.Fatal("the alert is a flash beside the created notice, not a fixture of the page")
	}
	logs, err := h.store.Logs(context.Background(), id, session.LogWarning, 0, 10)
	if err != nil || len(logs) != 1 || !strings.Contains(logs[0].Content, "needs-token") {
		t.Fatalf("the form's warning is in the session's log too: %v %v", logs, err)
	}
}
