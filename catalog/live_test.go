package catalog

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// touch gives a rewritten file a distinct modification time, whatever the clock's resolution.
func touch(t *testing.T, dir, name string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(dir, name), at, at); err != nil {
		t.Fatal(err)
	}
}

func TestLiveCatalogReloadsOnChangeAndEarlierSnapshotsStay(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "roots.json", `{"a": {"url": "u"}}`)
	write(t, dir, "mcp.json", `{"one": {"command": "node"}}`)
	live, err := NewLive(dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	started := live.Current() // what a running turn holds
	if live.Reload() {
		t.Fatal("nothing changed: nothing is reloaded")
	}

	write(t, dir, "mcp.json", `{"one": {"command": "node"}, "two": {"command": "node"}}`)
	touch(t, dir, "mcp.json", time.Now().Add(time.Minute))
	if !live.Reload() {
		t.Fatal("a changed mcp.json is reloaded")
	}
	if _, ok := live.Current().MCPServers["two"]; !ok {
		t.Fatal("the reloaded catalog has the new server")
	}
	if _, ok := started.MCPServers["two"]; ok || len(started.MCPServers) != 1 {
		t.Fatal("a snapshot taken before the reload is unchanged")
	}

	write(t, dir, "runtimes.json", `{"pi": {"models": [{"id": "m", "default": true}]}}`)
	if !live.Reload() || live.Current().DefaultModel("pi") != "m" {
		t.Fatal("a file added to the folder is picked up")
	}

	before := live.Current()
	write(t, dir, "mcp.json", `{"one": {"command": 7}}`)
	touch(t, dir, "mcp.json", time.Now().Add(2*time.Minute))
	if live.Reload() || live.Current() != before {
		t.Fatal("a catalog that no longer loads keeps the last good one")
	}
}

func TestBuiltInCatalogIsItsOwnSource(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	var s Source = c
	if s.Current() != c {
		t.Fatal("a loaded catalog is a Source that never changes")
	}
}
