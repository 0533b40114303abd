package runner_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// cliStatus reads GET /clis/status by runtime.
func (e *env) cliStatus(t *testing.T) map[string]map[string]any {
	t.Helper()
	status, out := e.do(t, http.MethodGet, "/api/v1/clis/status", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /clis/status: %d %v", status, out)
	}
	byRuntime := map[string]map[string]any{}
	for _, c := range out["clis"].([]any) {
		entry := c.(map[string]any)
		byRuntime[entry["runtime"].(string)] = entry
	}
	return byRuntime
}

// waitCLIs polls the status until ok holds, failing after a generous deadline.
func (e *env) waitCLIs(t *testing.T, what string, ok func(map[string]map[string]any) bool) map[string]map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := e.cliStatus(t)
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s: %v", what, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// allProbed: every runtime has a record.
func allProbed(got map[string]map[string]any) bool {
	for _, runtime := range catalog.RuntimeKeys {
		if got[runtime]["missing"] != false {
			return false
		}
	}
	return true
}

// probedAgain: every runtime has a record and Claude's is newer than before (a checked_at or nil).
func probedAgain(before any) func(map[string]map[string]any) bool {
	return func(got map[string]map[string]any) bool {
		return allProbed(got) && got[catalog.RuntimeClaude]["checked_at"] != before
	}
}

// loggedOutAgent is the fake CLI whose login check fails, as a logged-out Codex's does.
func loggedOutAgent(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nFAKEAGENT_LOGGED_OUT=1 exec " + fakeAgent + " \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The CLI status cache: empty before any probe; a refresh has the worker probe each runtime's
// CLI (version, login state, an absent binary reported as not installed); clearing empties it
// and the probe it queues fills it again. The MCP actions do the same.
func TestTheCLIStatusCacheIsFilledByTheWorkersProbe(t *testing.T) {
	absent := filepath.Join(t.TempDir(), "no-such-pi")
	e := private(t, envOptions{noWork: true, bins: map[string]string{
		catalog.RuntimeClaude: fakeAgent, catalog.RuntimeCodex: loggedOutAgent(t), catalog.RuntimePi: absent}})

	for runtime, c := range e.cliStatus(t) {
		if c["missing"] != true || c["checked_at"] != nil || c["installed"] != false {
			t.Errorf("%s before any probe: %v, want missing", runtime, c)
		}
	}
	if status, out := e.do(t, http.MethodPost, "/api/v1/clis/refresh", nil); status != http.StatusOK || out["queued"] != true {
		t.Fatalf("POST /clis/refresh: %d %v", status, out)
	}
	e.startWorker(t, 0)
	got := e.waitCLIs(t, "the first probe", allProbed)
	want := map[string]map[string]any{
		catalog.RuntimeClaude: {"installed": true, "version": "fakeagent 1.2.3", "authenticated": true, "stale": false},
		catalog.RuntimeCodex:  {"installed": true, "version": "fakeagent 1.2.3", "authenticated": false, "stale": false},
		catalog.RuntimePi:     {"installed": false, "version": "", "authenticated": nil, "binary": absent},
	}
	for runtime, fields := range want {
		for k, v := range fields {
			if got[runtime][k] != v {
				t.Errorf("%s %s = %v, want %v (%v)", runtime, k, got[runtime][k], v, got[runtime])
			}
		}
	}
	if msg, _ := got[catalog.RuntimePi]["error"].(string); !strings.Contains(msg, "not installed") {
		t.Errorf("the absent Pi's error = %q, want it to say it is not installed", msg)
	}
	if _, err := time.Parse(time.RFC3339, got[catalog.RuntimeClaude]["checked_at"].(string)); err != nil {
		t.Errorf("checked_at: %v", err)
	}

	// Clearing forgets the records at once (no worker runs meanwhile); the probe it queued
	// fills them again.
	e.stop()
	if status, out := e.do(t, http.MethodPost, "/api/v1/clis/clear_cache", nil); status != http.StatusOK || out["queued"] != true {
		t.Fatalf("POST /clis/clear_cache: %d %v", status, out)
	}
	for runtime, c := range e.cliStatus(t) {
		if c["missing"] != true {
			t.Errorf("%s after clear_cache: %v, want missing", runtime, c)
		}
	}
	e.startWorker(t, 0)
	refilled := e.waitCLIs(t, "the probe clear_cache queued", allProbed)
	if refilled[catalog.RuntimeClaude]["version"] != "fakeagent 1.2.3" {
		t.Errorf("after clear_cache: %v", refilled)
	}

	// The MCP actions queue the same probe; get_system_health reports the cache.
	for action, heading := range map[string]string{"cli_clear_cache": "## CLI Cache Clear Queued", "cli_refresh": "## CLI Refresh Queued"} {
		before := e.cliStatus(t)[catalog.RuntimeClaude]["checked_at"]
		if text := e.callTool(t, "action_health", map[string]any{"action": action}); !strings.Contains(text, heading) {
			t.Errorf("action_health %s: %q", action, text)
		}
		e.waitCLIs(t, "the probe "+action+" queued", probedAgain(before))
	}
	// A record older than two refresh cadences is reported stale: the tick is not running.
	e.stop()
	old := time.Now().Add(-2*tasks.CLIsRefreshEvery - time.Minute)
	if err := e.queue.SaveCLIStatus(context.Background(), tasks.CLIStatus{Runtime: catalog.RuntimeClaude, Binary: fakeAgent,
		Installed: true, Version: "fakeagent 1.2.3", CheckedAt: &old}); err != nil {
		t.Fatal(err)
	}
	if c := e.cliStatus(t)[catalog.RuntimeClaude]; c["stale"] != true || c["missing"] != false {
		t.Errorf("a record probed %s ago: %v, want stale", time.Since(old).Round(time.Minute), c)
	}
	if c := e.cliStatus(t)[catalog.RuntimeCodex]; c["stale"] != false {
		t.Errorf("a fresh record: %v, want not stale", c)
	}
	report := e.callTool(t, "get_system_health", map[string]any{"include_cli_status": true})
	for _, line := range []string{"### CLI Status", "(stale: the periodic refresh has not run since)", "**codex:** fakeagent 1.2.3; not logged in",
		"**pi:** not installed (" + absent + ")"} {
		if !strings.Contains(report, line) {
			t.Errorf("get_system_health lacks %q:\n%s", line, report)
		}
	}
}
