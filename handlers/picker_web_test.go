package handlers_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
)

// The MCP-server pickers offer every catalog server: the ones that can start first, the rest
// after them with an Unavailable badge and the reason (the same answer get_configs marks
// "(unavailable)"). The new-session form ticks the chosen root's defaults except one that cannot
// start; a human may still tick it (a warning follows, never a refusal); the session page's form
// shows what the session carries and saves exactly what is ticked.
func TestThePickersBadgeServersThatCannotStart(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"roots.json": `{"general-agent": {"url": "file:///tmp/nowhere"}, "other-agent": {"url": "file:///tmp/elsewhere"}}`,
		"mcp.json": `{"local": {"title": "Local", "command": "node", "default_in_roots": ["general-agent"]},
  "declared": {"title": "Declared", "command": "node", "unavailable": "Accepts only static tokens.", "default_in_roots": ["general-agent"]},
  "needs-token": {"command": "node", "env": {"T": "${PICKER_TEST_UNSET}"}, "default_in_roots": ["general-agent"]},
  "other-local": {"command": "node", "default_in_roots": ["other-agent"]}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: humansRedisDB, CatalogDir: dir})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: e.Ops, Metrics: metrics.New(), Log: graphtest.Logger(), APIKeys: []string{apiKey},
		Web: web.Config{User: webUser, Password: webPassword}}))
	t.Cleanup(srv.Close)

	b := handlerstest.Browser(t, webUser, webPassword)
	// picks reads the picker as "name:ticked" in page order.
	picks := func() []string {
		return handlerstest.Value(t, b, "read the picker", chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("#mcp-picker input")].map(i => i.value + ":" + i.checked)`))
	}
	row := func(name string) string { return handlerstest.Text(t, b, "#pick-"+name) }
	chooseRoot := func(root string) {
		handlerstest.Value(t, b, "choose "+root, chromedp.Evaluate[bool](fmt.Sprintf(
			`(s => { s.value = %q; s.dispatchEvent(new Event("change")); return true })(document.getElementById("agent-root"))`, root)))
	}

	handlerstest.Step(t, b, "open the new-session form",
		chromedp.Navigate(srv.URL+"/sessions/new?agent_root=general-agent"), chromedp.WaitVisible(chromedp.ID("mcp-picker")))
	if got, want := picks(), []string{"local:true", "other-local:false", "declared:false", "needs-token:false"}; !slices.Equal(got, want) {
		t.Fatalf("the startable servers first, the root's startable defaults ticked: got %q, want %q", got, want)
	}
	for name, want := range map[string]string{"declared": "Unavailable Accepts only static tokens.", "needs-token": "Unavailable `PICKER_TEST_UNSET` unresolved"} {
		if got := row(name); !strings.HasSuffix(got, want) {
			t.Errorf("row %s: got %q, want it to end with %q", name, got, want)
		}
	}
	if got := row("local"); strings.Contains(got, "Unavailable") {
		t.Errorf("a startable server is badged: %q", got)
	}

	chooseRoot("other-agent")
	if got, want := picks(), []string{"local:false", "other-local:true", "declared:false", "needs-token:false"}; !slices.Equal(got, want) {
		t.Fatalf("another root ticks its own defaults: got %q, want %q", got, want)
	}
	chooseRoot("general-agent")
	title := graphtest.Unique(t, "picked")
	handlerstest.Step(t, b, "tick the declared-unavailable server too and create",
		chromedp.SendKeys(chromedp.ID("title"), title),
		chromedp.Click(chromedp.CSS(`#pick-declared input`)),
		chromedp.Click(chromedp.CSS(`form[action="/sessions"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if alert := handlerstest.Text(t, b, ".alert"); !strings.Contains(alert, "declared") || !strings.Contains(alert, "the session will run without those tools") {
		t.Errorf("a ticked server that cannot start warns: %q", alert)
	}
	loc, err := url.Parse(handlerstest.Value(t, b, "read the location", chromedp.Location()))
	if err != nil {
		t.Fatal(err)
	}
	id, err := e.Ops.Resolve(context.Background(), strings.TrimPrefix(loc.Path, "/sessions/"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Ops.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(s.MCPServers)); !slices.Equal(got, []string{"declared", "local"}) {
		t.Fatalf("the session carries what was ticked: %q", got)
	}

	handlerstest.Step(t, b, "open the session's server form", chromedp.Click(chromedp.ID("mcp-servers-heading")), chromedp.WaitVisible(chromedp.ID("mcp-servers-save")))
	if got, want := picks(), []string{"local:true", "other-local:false", "declared:true", "needs-token:false"}; !slices.Equal(got, want) {
		t.Fatalf("the form shows what the session carries: got %q, want %q", got, want)
	}
	if got := row("declared"); !strings.HasSuffix(got, "Unavailable Accepts only static tokens.") {
		t.Errorf("the session page badges it too: %q", got)
	}
	handlerstest.Step(t, b, "untick it and save",
		chromedp.Click(chromedp.CSS(`#pick-declared input`)),
		chromedp.Click(chromedp.ID("mcp-servers-save")),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if notice := handlerstest.Text(t, b, ".notice"); notice != "MCP servers saved: they take effect on the session's next turn." {
		t.Errorf("notice: %q", notice)
	}
	if s, _ = e.Ops.Get(context.Background(), id); !slices.Equal(s.MCPServers, []string{"local"}) {
		t.Fatalf("saved: %q", s.MCPServers)
	}
}
