package mcp_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
)

// setupReadiness serves a catalog folder of the two contract files, with a server in each
// blocking state and two that start.
func setupReadiness(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"roots.json": `{"team": {"url": "file:///tmp/repo"}}`,
		"mcp.json": `{
		  "works": {"title": "Works", "command": "node", "default_in_roots": ["team"]},
		  "has-token": {"command": "node", "env": {"T": "${CATALOG_TEST_SET}"}},
		  "needs-token": {"command": "node", "env": {"T": "${CATALOG_TEST_TOKEN}"}, "default_in_roots": ["team"]},
		  "declared": {"command": "node", "unavailable": "Accepts only\n   static tokens."},
		  "oauth-remote": {"type": "streamable-http", "url": "https://example.invalid/mcp", "oauth": {}}
		}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, CatalogDir: dir,
		Variables: catalog.Variables{Env: func(k string) (string, bool) { return "set", k == "CATALOG_TEST_SET" }}})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey}}))
	t.Cleanup(srv.Close)
	return &env{srv: srv, store: o.Store, queue: o.Queue, ops: o.Ops, dataDir: o.DataDir}
}

func TestGetConfigsOffersOnlyStartableServersAndRostersTheRest(t *testing.T) {
	e := setupReadiness(t)
	text := e.ok(t, "/mcp", "get_configs", nil)
	servers := text[strings.Index(text, "## MCP Servers"):strings.Index(text, "## Agent Roots")]
	usable, roster, _ := strings.Cut(servers, "### Unavailable")
	contains(t, usable, "Found 2 usable server(s) (of 5 in the catalog; the other 3 are unavailable, listed below):",
		"- **Name:** `works`", "- **Name:** `has-token`")
	for _, broken := range []string{"needs-token", "declared", "oauth-remote"} {
		if strings.Contains(usable, broken) {
			t.Errorf("%s cannot start and is not offered:\n%s", broken, usable)
		}
	}
	wantRoster := "\n- `declared` — unavailable: Accepts only static tokens.\n" +
		"- `needs-token` — unavailable: `CATALOG_TEST_TOKEN` unresolved\n" +
		"- `oauth-remote` — unavailable: OAuth authorization not completed (set ZIMMER_SECRET_KEY so Zimmer can store OAuth credentials)\n"
	if strings.TrimSpace(roster) != strings.TrimSpace(wantRoster) {
		t.Errorf("one line per unavailable server, with its reason:\n got %q\nwant %q", roster, wantRoster)
	}
	contains(t, text, "- **Default MCP Servers:** needs-token (unavailable), works")
}

func TestStartSessionWarnsAboutADefaultThatCannotStart(t *testing.T) {
	e := setupReadiness(t)
	text := e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "team", "prompt": "go"})
	want := "⚠️ Zimmer cannot start MCP server(s) needs-token (`CATALOG_TEST_TOKEN` unresolved) right now. The session was created " +
		"anyway, but preparing it is expected to fail outright until the missing value is set; see /connectors."
	if !strings.HasSuffix(strings.TrimSpace(text), want) {
		t.Fatalf("the warning ends the result, under the ids:\n%s", text)
	}
	contains(t, text, "Session Started Successfully", "The agent job has been queued")

	quiet := e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "team", "mcp_servers": []any{"works"}})
	if strings.Contains(quiet, "⚠️") {
		t.Fatalf("no warning when every server starts:\n%s", quiet)
	}
}
