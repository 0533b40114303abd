package runner_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog/catalogtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// repoWithOwnMCPConfig is a repository that checks in a .mcp.json of its own.
func repoWithOwnMCPConfig(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "own-config")
	script := `set -e
git init -q -b main "$1"
cd "$1"
echo '{"mcpServers": {"repo-own": {"command": "./tools/mcp"}}}' > .mcp.json
git -c user.name=t -c user.email=t@example.invalid add -A
git -c user.name=t -c user.email=t@example.invalid commit -q -m init`
	if out, err := exec.Command("bash", "-c", script, "bash", repo).CombinedOutput(); err != nil {
		t.Fatalf("make the repository: %v\n%s", err, out)
	}
	return "file://" + repo
}

// seenServers are the MCP servers in the config the fake agent found at the start of each turn.
func (e *env) seenServers(t *testing.T, id int64) [][]string {
	t.Helper()
	var out [][]string
	for _, inv := range e.invocations(t, id) {
		var names []string
		for _, n := range inv["mcp_servers"].([]any) {
			names = append(names, n.(string))
		}
		out = append(out, names)
	}
	return out
}

func (e *env) callTool(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-API-Key", apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Result.IsError || len(out.Result.Content) == 0 {
		t.Fatalf("%s %v: %v %+v", tool, args, err, out)
	}
	return out.Result.Content[0].Text
}

// A server taken off the session reaches the runtime before its next turn: the config is
// written again, without it, and the repository's own entry stays. So does a server added.
func TestTheNextTurnSeesTheSessionsChangedMCPServers(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"agent_root": "parent", "git_root": repoWithOwnMCPConfig(t),
		"mcp_servers": []string{"docs", "slowpoke"}, "prompt": "first"})
	e.waitStatus(t, id, session.StatusNeedsInput)

	e.callTool(t, "action_session", map[string]any{"session_id": id, "action": "change_mcp_servers", "mcp_servers": []string{"docs"}})
	e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "second"})
	e.waitFor(t, id, "the second turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, id)) == 2
	})

	if status, out := e.do(t, http.MethodPatch, "/api/v1/sessions/"+itoa(id)+"/mcp_servers",
		map[string]any{"mcp_servers": []string{"slowpoke"}}); status != http.StatusOK {
		t.Fatalf("PATCH mcp_servers: %d %v", status, out)
	}
	e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "third"})
	e.waitFor(t, id, "the third turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, id)) == 3
	})

	seen := e.seenServers(t, id)
	want := [][]string{
		{"docs", "repo-own", "slowpoke", "zimmer"},
		{"docs", "repo-own", "zimmer"},
		{"repo-own", "slowpoke", "zimmer"},
	}
	for i := range want {
		if !slices.Equal(seen[i], want[i]) {
			t.Errorf("turn %d saw %v, want %v", i+1, seen[i], want[i])
		}
	}
}

// The secrets file is asked before the environment, at every prepare; one that anybody else
// could read fails the prepare, naming the file and never a value.
func TestPlaceholdersResolveFromTheSecretsFileAtEveryPrepare(t *testing.T) {
	secrets := filepath.Join(t.TempDir(), "secrets")
	if err := os.WriteFile(secrets, []byte("RUNNER_TEST_FLEET_TOKEN=from-the-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RUNNER_TEST_FLEET_TOKEN", "from-the-environment")
	e := private(t, envOptions{secrets: secrets})
	id := e.create(t, map[string]any{"prompt": "hi", "agent_root": "parent", "mcp_servers": []string{"fleet-tool"}})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	if tok := catalogtest.MCPServers(t, s.Metadata[session.MetaConfigPath].(string))["fleet-tool"]["env"].(map[string]any)["TOKEN"]; tok != "from-the-file" {
		t.Fatalf("the file wins over the environment: %v", tok)
	}

	if err := os.Chmod(secrets, 0o644); err != nil {
		t.Fatal(err)
	}
	e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "again"})
	s = e.waitStatus(t, id, session.StatusFailed)
	msg, _ := s.Metadata["failure_message"].(string)
	if s.Metadata["failure_reason"] != orchestrator.FailureSecret || !strings.Contains(msg, secrets) || !strings.Contains(msg, "must be 0600") ||
		strings.Contains(msg, "from-the-file") {
		t.Fatalf("a secrets file others can read fails the prepare by name: %v %q", s.Metadata["failure_reason"], msg)
	}
}
