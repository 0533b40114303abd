package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// The words a runtime reports when brightdata's provider rejects its key, which the server says
// only on its own stderr: Claude's log joins the stderr entries before the transport's error;
// Pi's MCP adapter appends the server's last stderr lines to it in parentheses.
const (
	claudeRejection = "Server stderr: BrightData: Invalid API key - authentication failed | Connection failed after 3941ms (CONNECTION_CLOSED): Connection closed"
	piRejection     = "MCP error -32000: Connection closed (BrightData: Invalid API key - authentication failed)"
)

// degradedCatalog: root solo takes brightdata by default, a stdio server whose provider rejects
// its key (the runtime's words are rejection) until the file connectedAfter exists; flaky fails
// with words that name no credential.
func degradedCatalog(t *testing.T, connectedAfter, rejection string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"roots.json": fmt.Sprintf(`{"solo": {"url": %q, "default_branch": "main"}}`, repoURL),
		"mcp.json": fmt.Sprintf(`{
  "brightdata": {"command": "node", "default_in_roots": ["solo"], "env": {"FAKEAGENT_MCP_STATUS": "failed",
    "FAKEAGENT_MCP_ERROR": %q, "FAKEAGENT_MCP_CONNECTED_AFTER": %q}},
  "flaky": {"command": "node", "env": {"FAKEAGENT_MCP_STATUS": "failed", "FAKEAGENT_MCP_ERROR": "Connection failed after 120ms (CONNECTION_CLOSED): Connection closed"}}
}`, rejection, connectedAfter),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func promptOf(turn map[string]any) string { s, _ := turn["prompt"].(string); return s }

// A root default whose credential the provider rejects is left out at once: the session runs on
// without it, every later prompt carries the <unavailable-mcp-servers> block, its failing again
// changes nothing, and the record is retired only when the server reports connected again. Each
// runtime reports it in its own stream: Claude in its init event, Pi in the result of the
// agent's first call on the server.
func TestAServerThatFailsToStartIsLeftOutAndTheSessionRunsOn(t *testing.T) {
	for _, tt := range []struct{ runtime, rejection string }{
		{"claude_code", claudeRejection},
		{"pi", piRejection},
	} {
		t.Run(tt.runtime, func(t *testing.T) { leftOutAndRunsOn(t, tt.runtime, tt.rejection) })
	}
}

func leftOutAndRunsOn(t *testing.T, runtime, rejection string) {
	fixed := filepath.Join(t.TempDir(), "key-fixed")
	e := private(t, envOptions{catalog: degradedCatalog(t, fixed, rejection)})
	id := e.create(t, map[string]any{"prompt": "first task", "agent_runtime": runtime})
	s := e.waitFor(t, id, "the recovery turn to end", 40*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	entry, _ := session.DegradedServers(s)["brightdata"].(map[string]any)
	if !strings.Contains(session.BagString(entry, "reason"), "Invalid API key") || entry["route"] != "degrade" {
		t.Fatalf("recorded with its own reason: %v", s.Metadata)
	}
	if st, _ := s.CustomMetadata[session.CustomMCPServersStatus].(map[string]any); st["brightdata"] != "failed" {
		t.Fatalf("marked failed: %v", s.CustomMetadata)
	}
	nudge := promptOf(turns(e.transcript(t, id))[1])
	if !strings.HasPrefix(nudge, "SYSTEM_RECOVERY") || !strings.Contains(nudge, "<unavailable-mcp-servers>") ||
		!strings.Contains(nudge, "- brightdata: Server stderr: BrightData: Invalid API key") || !strings.Contains(nudge, "stop and say so") {
		t.Fatalf("the session continues with the nudge and the block:\n%s", nudge)
	}

	e.do(t, "POST", fmt.Sprintf("/api/v1/sessions/%d/follow_up", id), map[string]any{"prompt": "second task"})
	e.waitFor(t, id, "the follow-up", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 3
	})
	next := promptOf(turns(e.transcript(t, id))[2])
	if !strings.HasPrefix(next, "second task") || !strings.Contains(next, "<unavailable-mcp-servers>") {
		t.Fatalf("the next prompt carries the block (failing again was a no-op):\n%s", next)
	}

	if err := os.WriteFile(fixed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e.do(t, "POST", fmt.Sprintf("/api/v1/sessions/%d/follow_up", id), map[string]any{"prompt": "third task"})
	s = e.waitFor(t, id, "the server to connect", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 4
	})
	if _, left := s.Metadata[session.MetaMCPDegradedServers]; left {
		t.Fatalf("connecting again retires the record: %v", s.Metadata)
	}

	// Removing the server from the session takes it out of the config the next turn starts with.
	if status, out := e.do(t, "PATCH", fmt.Sprintf("/api/v1/sessions/%d/mcp_servers", id), map[string]any{"mcp_servers": []string{}}); status != 200 {
		t.Fatalf("change the servers: %d %v", status, out)
	}
	e.do(t, "POST", fmt.Sprintf("/api/v1/sessions/%d/follow_up", id), map[string]any{"prompt": "fourth task"})
	e.waitFor(t, id, "the turn after the change", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 5
	})
	inv := e.invocations(t, id)
	if before, after := fmt.Sprint(inv[len(inv)-2]["mcp_servers"]), fmt.Sprint(inv[len(inv)-1]["mcp_servers"]); !strings.Contains(before, "brightdata") || strings.Contains(after, "brightdata") {
		t.Fatalf("the config before the change names brightdata (%s), the one after does not (%s)", before, after)
	}
}

// A failure that names no credential rides the ladder — three retries, each waiting twice as
// long (the base is 200 ms here, 30 s in production) — and only then is the server left out.
func TestAnUnexplainedFailureRidesTheLadderBeforeItIsLeftOut(t *testing.T) {
	e := private(t, envOptions{catalog: degradedCatalog(t, "", claudeRejection), mcpRetry: 200 * time.Millisecond})
	id := e.create(t, map[string]any{"prompt": "work", "mcp_servers": []string{"flaky"}})
	s := e.waitFor(t, id, "the ladder to end", 60*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 5
	})
	entry, _ := session.DegradedServers(s)["flaky"].(map[string]any)
	if !strings.HasPrefix(session.BagString(entry, "reason"), "did not connect after 3 retries: Connection failed") {
		t.Fatalf("left out after the ladder: %v", s.Metadata)
	}
	var starts []time.Time
	for _, tm := range turns(e.transcript(t, id)) {
		at, err := time.Parse(time.RFC3339Nano, tm["started_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, at)
	}
	for i, want := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
		if gap := starts[i+1].Sub(starts[i]); gap < want {
			t.Errorf("retry %d came after %s, before its %s wait", i+1, gap, want)
		}
	}
	if p := promptOf(turns(e.transcript(t, id))[4]); !strings.Contains(p, "- flaky: did not connect after 3 retries") {
		t.Fatalf("the turn after the ladder carries the block:\n%s", p)
	}
}
