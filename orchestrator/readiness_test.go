package orchestrator_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/trigger"
)

func service(t *testing.T, cat catalog.Source) *orchestrator.Service {
	t.Helper()
	queue, err := tasks.OpenQueue(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Close() })
	return orchestrator.New(orchestrator.Deps{Store: graphtest.Store(t), Queue: queue, Catalog: cat, Log: graphtest.Logger(), DataDir: t.TempDir()})
}

// The readiness warning is advice: when working it out fails, the session is created and its
// job queued exactly as without it.
func TestAFailingReadinessCheckNeverBreaksASpawn(t *testing.T) {
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cat.MCPServers["broken"] = nil // an entry the readiness check cannot read
	ops := service(t, cat)
	servers, prompt, root := []string{"broken"}, "go", "general-agent"
	out, err := ops.Create(context.Background(), orchestrator.CreateParams{AgentRoot: &root, Prompt: &prompt, MCPServers: &servers})
	if err != nil || out.Session == nil || !out.JobQueued || len(out.Warnings) != 0 {
		t.Fatalf("created and queued, saying nothing: %+v %v", out, err)
	}
}

// The service reads the catalog through its source on every call, so a reload reaches the next
// operation while a snapshot taken earlier stays as it was.
func TestTheServiceReadsTheCatalogAsItIsNow(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, at time.Time) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	write("roots.json", `{"first": {"url": "file:///tmp/repo"}}`, time.Now())
	write("mcp.json", `{}`, time.Now())
	live, err := catalog.NewLive(dir, graphtest.Logger())
	if err != nil {
		t.Fatal(err)
	}
	ops := service(t, live)
	before := ops.Catalog()
	write("roots.json", `{"first": {"url": "file:///tmp/repo"}, "second": {"url": "file:///tmp/repo"}}`, time.Now().Add(time.Minute))
	if !live.Reload() {
		t.Fatal("the changed roots.json reloads")
	}
	root := "second"
	if _, err := ops.Create(context.Background(), orchestrator.CreateParams{AgentRoot: &root}); err != nil {
		t.Fatalf("a root added to the folder can be used at once: %v", err)
	}
	if _, ok := before.Roots["second"]; ok {
		t.Fatal("a snapshot taken before the reload does not change under its holder")
	}
}

// A trigger is a creation path like the others: a session it spawns with a server that cannot
// start is created, and the sentence lands in the session's log. A server the session gets
// through a plugin is checked like one it named.
func TestTriggerAndPluginSpawnsWarnInTheSessionLog(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"roots.json":   `{"r": {"url": "file:///tmp/repo"}}`,
		"mcp.json":     `{"dead": {"command": "node", "unavailable": "Retired upstream."}, "fine": {"command": "node"}}`,
		"plugins.json": `{"kit": {"mcp_servers": ["dead"]}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ops := service(t, cat)
	ctx := context.Background()
	const want = "Zimmer cannot start MCP server(s) dead (Retired upstream.) right now. The session was created anyway, but the session will run without those tools; see /connectors."
	logged := func(id int64) bool {
		entries, err := ops.Timeline(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Level == session.LogWarning && e.Content == want {
				return true
			}
		}
		return false
	}

	name, root, tmpl, dead := graphtest.Unique(t, "warns"), "r", "go", []string{"dead"}
	trig, _, err := ops.CreateTrigger(ctx, orchestrator.TriggerParams{Name: &name, AgentRootName: &root, PromptTemplate: &tmpl, MCPServers: &dead,
		Conditions: []orchestrator.ConditionEdit{{Type: trigger.TypeSystemEvent, Config: map[string]any{"event_name": "quota_available"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ops.InvokeTrigger(ctx, trig.ID, nil, nil)
	if err != nil || res.Outcome != orchestrator.FireSpawned || !logged(res.Session.ID) {
		t.Fatalf("the trigger spawns and the session log warns: %+v %v", res, err)
	}

	fine, kit, prompt := []string{"fine"}, []string{"kit"}, "go"
	out, err := ops.Create(ctx, orchestrator.CreateParams{AgentRoot: &root, Prompt: &prompt, MCPServers: &fine, CatalogPlugins: &kit})
	if err != nil || len(out.Warnings) != 1 || out.Warnings[0] != want || !logged(out.Session.ID) {
		t.Fatalf("the plugin's server is warned about: %+v %v", out.Warnings, err)
	}
}
