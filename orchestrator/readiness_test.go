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
