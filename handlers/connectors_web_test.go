package handlers_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/mcpauth/mcpauthtest"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// The Connectors page lists every server with its state and what to do; a human clicks
// Authorize, consents at the provider (the local test authorization server consents at once),
// lands back on the page with the server ready, and the session parked waiting for it continues.
func TestConnectorsPageAuthorizesAServerInTheBrowser(t *testing.T) {
	as := mcpauthtest.Start(t)
	oauthName := graphtest.Unique(t, "notes") // credentials are global in the shared graph
	dir := t.TempDir()
	for name, text := range map[string]string{
		"roots.json": `{"general-agent": {"url": "file:///tmp/nowhere"}}`,
		"mcp.json": fmt.Sprintf(`{%q: {"title": "Notes", "type": "streamable-http", "url": %q},
  "needs-token": {"command": "node", "env": {"T": "${CONNECTORS_TEST_UNSET}"}},
  "declared": {"command": "node", "unavailable": "Accepts only static tokens."},
  "local": {"command": "node"}}`, oauthName, as.URL()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewUnstartedServer(nil)
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: humansRedisDB, CatalogDir: dir,
		OAuth: orchestrator.OAuthConfig{SecretKey: "connectors-test-secret-0123456789abcdef", PublicURL: "http://" + srv.Listener.Addr().String()}})
	srv.Config.Handler = handlers.New(handlers.Deps{Ops: e.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey},
		Web: web.Config{User: webUser, Password: webPassword}})
	srv.Start()
	t.Cleanup(srv.Close)

	// A session parked for the server before the agent ran.
	ctx := context.Background()
	root, prompt, servers := "general-agent", "read my notes", []string{oauthName}
	created, err := e.Ops.Create(ctx, orchestrator.CreateParams{AgentRoot: &root, Prompt: &prompt, MCPServers: &servers})
	if err != nil {
		t.Fatal(err)
	}
	id, job := created.Session.ID, *created.Session.JobID
	if _, err := e.Ops.ClaimRun(ctx, id, job, prompt); err != nil {
		t.Fatal(err)
	}
	_, missing := e.Ops.OAuthGate(ctx, servers)
	if err := e.Ops.ParkForOAuth(ctx, id, job, missing); err != nil {
		t.Fatal(err)
	}

	b := handlerstest.Browser(t, webUser, webPassword)
	row := func(name string) string { return handlerstest.Text(t, b, "#connector-"+name) }
	handlerstest.Step(t, b, "open the Connectors page", chromedp.Navigate(srv.URL+"/connectors"), chromedp.WaitVisible(chromedp.ID("connectors")))
	for name, want := range map[string][]string{
		oauthName:     {"needs_authorization", "OAuth authorization not completed", "Authorize it", "Authorize " + oauthName},
		"needs-token": {"missing_configuration", "`CONNECTORS_TEST_UNSET` unresolved", "Set the missing value"},
		"declared":    {"declared_unavailable", "Accepts only static tokens.", "remove its unavailable field"},
		"local":       {"no_credential_required", "Nothing to do."},
	} {
		for _, w := range want {
			if got := row(name); !strings.Contains(got, w) {
				t.Errorf("row %s lacks %q: %q", name, w, got)
			}
		}
	}
	if strings.Contains(row("local"), "Authorize") {
		t.Error("a stdio server has no Authorize button")
	}

	handlerstest.Step(t, b, "authorize and come back",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#connector-%s button`, oauthName))),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if notice := handlerstest.Text(t, b, ".notice"); notice != oauthName+" is authorized. 1 session waiting for it continues." {
		t.Fatalf("notice: %q", notice)
	}
	if got := row(oauthName); !strings.Contains(got, "ready") || !strings.Contains(got, "Nothing to do.") {
		t.Fatalf("authorized: %q", got)
	}
	if s, _ := e.Ops.Get(ctx, id); s.Status != session.StatusRunning {
		t.Fatalf("the parked session continues: %s", s.Status)
	}
}
