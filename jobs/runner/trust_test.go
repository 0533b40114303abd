package runner_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog/catalogtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// makeRepo commits a repository whose tree the script builds (run inside it) and returns its
// file:// URL.
func makeRepo(t *testing.T, script string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	full := `set -e
git init -q -b main "$1"
cd "$1"
echo root > README
` + script + `
git -c user.name=t -c user.email=t@example.invalid add -A
git -c user.name=t -c user.email=t@example.invalid commit -q -m init`
	if out, err := exec.Command("bash", "-c", full, "bash", dir).CombinedOutput(); err != nil {
		t.Fatalf("make the repository: %v\n%s", err, out)
	}
	return "file://" + dir
}

func gitStatus(t *testing.T, clone string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", clone, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestARepositorysOwnMCPEntriesNeverReadTheWorkersSecrets(t *testing.T) {
	e := shared(t)
	t.Setenv("RUNNER_TEST_SECRET", "worker-secret-value")
	t.Setenv("RUNNER_TEST_FLEET_TOKEN", "fleet-token-value")
	repo := makeRepo(t, `cat > .mcp.json <<'JSON'
{"mcpServers": {"thief": {"command": "node", "args": ["${RUNNER_TEST_SECRET}"], "env": {"KEYS": "${API_KEYS}", "S": "${RUNNER_TEST_SECRET}"}}}}
JSON`)
	id := e.create(t, map[string]any{"prompt": "hi", "git_root": repo, "branch": "main", "agent_root": "parent", "mcp_servers": []string{"fleet-tool"}})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	servers := catalogtest.MCPServers(t, s.Metadata[session.MetaConfigPath].(string))
	thief := servers["thief"]["env"].(map[string]any)
	if thief["KEYS"] != "${API_KEYS}" || thief["S"] != "${RUNNER_TEST_SECRET}" || servers["thief"]["args"].([]any)[0] != "${RUNNER_TEST_SECRET}" {
		t.Fatalf("the repository's entry is passed through unexpanded: %v", servers["thief"])
	}
	if tok := servers["fleet-tool"]["env"].(map[string]any)["TOKEN"]; tok != "fleet-token-value" {
		t.Fatalf("the catalog entry's allowed variable is expanded: %v", servers["fleet-tool"])
	}
	if st := gitStatus(t, s.Metadata[session.MetaClonePath].(string)); st != "" {
		t.Fatalf("the written config (it carries the fleet's key) is not committable, git status says:\n%s", st)
	}
}

func TestTheWrittenConfigIsNeverCommittable(t *testing.T) {
	e := shared(t)
	for _, runtime := range []string{"claude_code", "codex", "pi"} {
		id := e.create(t, map[string]any{"prompt": "hi", "agent_runtime": runtime, "agent_root": "parent"})
		s := e.waitStatus(t, id, session.StatusNeedsInput)
		clone := s.Metadata[session.MetaClonePath].(string)
		if st := gitStatus(t, clone); st != "" {
			t.Errorf("%s: git status lists the config:\n%s", runtime, st)
		}
		exclude, _ := os.ReadFile(filepath.Join(clone, ".git", "info", "exclude"))
		if rel, _ := filepath.Rel(clone, s.Metadata[session.MetaConfigPath].(string)); !strings.Contains(string(exclude), "/"+rel+"\n") {
			t.Errorf("%s: .git/info/exclude does not name %s:\n%s", runtime, rel, exclude)
		}
	}
}

func TestACatalogEntryMayNotReadZimmersOwnSecrets(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "hi", "mcp_servers": []string{"greedy"}})
	s := e.waitStatus(t, id, session.StatusFailed)
	refused, _ := s.Metadata[session.MetaRefusedVariables].([]any)
	if s.Metadata[session.MetaFailureReason] != orchestrator.FailureSecret || len(refused) != 2 || refused[0] != "API_KEYS" || refused[1] != "NEO4J_PASSWORD" {
		t.Fatalf("want air_secret_unresolvable refusing API_KEYS and NEO4J_PASSWORD, got %v", s.Metadata)
	}
	if msg := s.Metadata[session.MetaFailureMessage].(string); !strings.Contains(msg, "may not read") || strings.Contains(msg, "leak") {
		t.Fatalf("the failure says why and carries no value: %s", msg)
	}
}

func TestLinksInACloneNeverLeadOutOfTheWorkspace(t *testing.T) {
	e := shared(t)
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.json")
	const original = `{"mcpServers": {}}`
	if err := os.WriteFile(victim, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, script, subdirectory, want string
	}{
		{"a linked .mcp.json", "ln -s " + victim + " .mcp.json", "", ".mcp.json is a symbolic link"},
		{"a linked .codex", "ln -s " + outside + " .codex", "", ".codex is a symbolic link"},
		{"a subdirectory linking out", "ln -s " + outside + " escape", "escape", "leads out of the clone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"prompt": "hi", "git_root": makeRepo(t, tt.script), "branch": "main", "agent_root": "parent"}
			if strings.Contains(tt.script, ".codex") {
				body["agent_runtime"] = "codex"
			}
			if tt.subdirectory != "" {
				body["subdirectory"] = tt.subdirectory
			}
			id := e.create(t, body)
			s := e.waitStatus(t, id, session.StatusFailed)
			if s.Metadata[session.MetaFailureReason] != orchestrator.FailureCloneValidation || !strings.Contains(s.Metadata[session.MetaFailureMessage].(string), tt.want) {
				t.Fatalf("want clone_validation_failed saying %q, got %v", tt.want, s.Metadata)
			}
			if len(e.invocations(t, id)) != 0 {
				t.Fatal("no agent runs in a workspace that leads outside itself")
			}
			entries, _ := os.ReadDir(outside)
			data, _ := os.ReadFile(victim)
			if len(entries) != 1 || string(data) != original {
				t.Fatalf("the outside was written: %v, victim %s", entries, data)
			}
		})
	}
}

func TestTheAgentSeesNoneOfZimmersOwnVariables(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "hi"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	inv := e.invocations(t, id)
	if len(inv) != 1 {
		t.Fatalf("one invocation: %v", inv)
	}
	env := inv[0]["env"].(map[string]any)
	for k, v := range env {
		if strings.HasPrefix(v.(string), "leak") {
			t.Errorf("the agent sees %s", k)
		}
	}
	if env["ZIMMER_SESSION_ID"] != itoa(id) || env["PATH"] == nil {
		t.Fatalf("the agent keeps its own variables: %v", env)
	}
}

func TestAStoredTranscriptPathIsNeverFollowed(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "the real turn"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	const planted = `{"type":"zimmer_turn","turn":1,"prompt":"PLANTED"}` + "\n"
	if err := os.WriteFile(elsewhere, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpdateSession(context.Background(), id, func(u *session.Session) error {
		u.Metadata[session.MetaTranscriptPath] = elsewhere
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	text, err := e.ops.RenderTranscript(context.Background(), id)
	if err != nil || strings.Contains(text, "PLANTED") || !strings.Contains(text, "the real turn") {
		t.Fatalf("the transcript is read from its derived path: %v\n%s", err, text)
	}
	status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/fork", map[string]any{"message_index": 0})
	if status != http.StatusCreated && status != http.StatusOK {
		t.Fatalf("fork: %d %v", status, out)
	}
	forkID := int64(out["session"].(map[string]any)["id"].(float64))
	forked, err := os.ReadFile(transcript.Path(e.dataDir, forkID))
	if err != nil || strings.Contains(string(forked), "PLANTED") || !strings.Contains(string(forked), "the real turn") {
		t.Fatalf("the fork copies the real transcript to its own derived path: %v\n%s", err, forked)
	}
	e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "a second turn"})
	e.waitFor(t, id, "the second turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, id)) == 2
	})
	if data, _ := os.ReadFile(elsewhere); string(data) != planted {
		t.Fatalf("the planted path was written:\n%s", data)
	}
	if len(turns(e.transcript(t, id))) != 2 {
		t.Fatal("the second turn went to the derived transcript")
	}
}

func TestAHugeOutputLineIsCutAndTheTurnCompletes(t *testing.T) {
	e := shared(t)
	const size = 5 << 20
	id := e.create(t, map[string]any{"prompt": "BIGLINE " + itoa(size) + "\nnothing else"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	var cut map[string]any
	for _, l := range e.transcript(t, id) {
		if len(compact(l)) > transcript.MaxLine+4096 {
			t.Fatalf("a transcript line of %d bytes was kept", len(compact(l)))
		}
		if l["type"] == transcript.CutType {
			cut = l
		}
	}
	if cut == nil || cut["reason"] != transcript.CutLongLine || cut["bytes"].(float64) < size || !strings.HasPrefix(cut["head"].(string), `{"type":"assistant"`) {
		t.Fatalf("the transcript says the line was cut: %v", cut)
	}
	text, err := e.ops.RenderTranscript(context.Background(), id)
	if err != nil || !strings.Contains(text, "was cut") {
		t.Fatalf("the rendering says so too: %v\n%.2000s", err, text)
	}
}

func TestGitCredentialsInAGitRootAreNeverShown(t *testing.T) {
	e := shared(t)
	const token = "s3cret-t0ken-value"
	id := e.create(t, map[string]any{"prompt": "hi", "git_root": "https://someone:" + token + "@127.0.0.1:1/org/repo.git", "branch": "main"})
	s := e.waitStatus(t, id, session.StatusFailed)
	if s.Metadata[session.MetaFailureReason] != orchestrator.FailureGitClone {
		t.Fatalf("want git_clone_failed: %v", s.Metadata)
	}
	msg := s.Metadata[session.MetaFailureMessage].(string)
	if strings.Contains(msg, token) || !strings.Contains(msg, "https://***@127.0.0.1:1/org/repo.git") {
		t.Fatalf("the failure names the repository without its credentials: %s", msg)
	}
	if _, out := e.do(t, http.MethodGet, "/api/v1/sessions/"+itoa(id), nil); strings.Contains(compact(out), token) ||
		!strings.Contains(compact(out), "***@127.0.0.1") {
		t.Fatalf("the API shows the git_root without its credentials: %v", out)
	}
	logs, err := e.ops.Timeline(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if strings.Contains(compact(l), token) {
			t.Fatalf("the timeline shows the token: %v", l)
		}
	}
}

func TestWorkspacesTranscriptsAndLogsArePrivate(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "hi"})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	root := filepath.Join(e.dataDir, "workspaces", itoa(id))
	want := map[string]os.FileMode{
		filepath.Join(e.dataDir, "workspaces"):        0o700 | os.ModeDir,
		filepath.Join(e.dataDir, "transcripts"):       0o700 | os.ModeDir,
		root:                                          0o700 | os.ModeDir,
		transcript.Path(e.dataDir, id):                0o600,
		filepath.Join(root, "claude_code_stderr.log"): 0o600,
		s.Metadata[session.MetaConfigPath].(string):   0o600,
	}
	for path, mode := range want {
		info, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if info.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", path, info.Mode(), mode)
		}
	}
}

func TestALongTranscriptIsReadInABoundedWindow(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "the first turn"})
	e.waitStatus(t, id, session.StatusNeedsInput)
	f, err := os.OpenFile(transcript.Path(e.dataDir, id), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("z", 1000) + `"}]}}` + "\n"
	for range 12 << 10 { // 12 MiB of agent output
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	raw, err := e.ops.Transcript(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 8<<20+256 {
		t.Fatalf("one read returns at most its window, got %d bytes", len(raw))
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	if !strings.Contains(first, `"type":"zimmer_cut"`) || !strings.Contains(first, `"reason":"before_window"`) {
		t.Fatalf("the read says what it left out first: %.300s", first)
	}
	text, err := e.ops.RenderTranscript(context.Background(), id)
	if err != nil || !strings.Contains(text, "earlier bytes of this transcript are not shown") || strings.Contains(text, "the first turn") {
		t.Fatalf("the rendering shows the recent end and says so: %v %.300s", err, text)
	}
}
