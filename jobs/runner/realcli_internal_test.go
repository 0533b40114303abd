package runner

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
)

// realCLIs is the folder holding the real claude and codex binaries, as devtools/agent-clis.sh
// installs them (make test sets it).
func realCLIs(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ZIMMER_TEST_AGENT_CLIS")
	if dir == "" {
		t.Fatal("ZIMMER_TEST_AGENT_CLIS is not set: run the tests with `make test`, which installs the real CLIs " +
			"(devtools/agent-clis.sh prints the folder to set it to)")
	}
	return dir
}

// offline runs name with args in a network namespace of its own (`unshare -rn`): it has no
// network at all, not even loopback, so nothing it does can reach a model or a registry.
func offline(dir, home string, env map[string]string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command("unshare", append([]string{"-rn", "--", name}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		// Claude Code refuses --dangerously-skip-permissions as root unless told it is sandboxed;
		// inside the namespace the test is root.
		"IS_SANDBOX=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"ANTHROPIC_API_KEY=sk-ant-offline-test", "OPENAI_API_KEY=sk-offline-test"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// realCLIWorkspace prepares a working directory for runtime exactly as a turn does (MCP config,
// skills, hooks) from a catalog with a stdio server that marks its start, a remote server with a
// secret header, a skill and a SessionStart hook that marks its run.
func realCLIWorkspace(t *testing.T, runtime string) (work, marks string, cfg catalog.RuntimeConfig, hooks []catalog.Hook) {
	t.Helper()
	base := t.TempDir()
	marks, work = filepath.Join(base, "marks"), filepath.Join(base, "work")
	catDir := filepath.Join(base, "catalog")
	for _, d := range []string{marks, work, filepath.Join(catDir, "skills", "lint")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hookCmd, _ := json.Marshal("touch " + filepath.Join(marks, "hook-ran"))
	files := map[string]string{
		"roots.json": `{"r": {"url": "file:///nowhere"}}`,
		"mcp.json": `{
  "marker": {"type": "stdio", "command": "sh", "args": ["-c", "touch \"$MARK_FILE\""], "env": {"MARK_FILE": "${REALCLI_MARK_FILE}"}},
  "remote-docs": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${REALCLI_TOKEN}"}, "startup_timeout_sec": 20}
}`,
		"skills.json":          `{"lint": {"description": "Lint before committing."}}`,
		"skills/lint/SKILL.md": "Run the linter.\n",
		"hooks.json":           `{"mark": {"event": "SessionStart", "command": ` + string(hookCmd) + `}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(catDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := catalog.Load(catDir)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"REALCLI_MARK_FILE": filepath.Join(marks, "server-started"), "REALCLI_TOKEN": "t0ken"}
	cfg, err = cat.WriteRuntimeConfig(catalog.RuntimeConfigRequest{Runtime: runtime, WorkDir: work, SessionID: 7,
		Servers: []string{"marker", "remote-docs"}, PublicURL: "http://127.0.0.1:9", Token: "session-token",
		Lookup: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.WriteSkills(catalog.SkillsRequest{Runtime: runtime, WorkDir: work, Skills: []string{"lint"}}); err != nil {
		t.Fatal(err)
	}
	return work, marks, cfg, cat.HooksFor([]string{"mark"})
}

// waitFor polls until every file exists or the deadline passes.
func waitFor(t *testing.T, d time.Duration, files ...string) {
	t.Helper()
	for end := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
		missing := slices.DeleteFunc(slices.Clone(files), func(f string) bool { _, err := os.Stat(f); return err == nil })
		if len(missing) == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("not there after %s: %v", d, missing)
		}
	}
}

func stopGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}

// The configs Zimmer writes are accepted by the real Claude Code CLI from npm, with no network:
// `claude mcp list` lists every configured server, and a turn spawned with the runner's own
// command line starts the stdio server (with its resolved env), runs the catalog hook, and
// reports the servers and the skill in its init event. The process is stopped at that point,
// before it would wait on a model it cannot reach.
func TestRealClaudeCodeAcceptsTheConfigZimmerWrites(t *testing.T) {
	t.Parallel() // offline, Claude Code takes about 25 s to its init event: overlap it with Codex
	bin := filepath.Join(realCLIs(t), "claude")
	work, marks, cfg, hooks := realCLIWorkspace(t, catalog.RuntimeClaude)
	home := t.TempDir()

	out, err := offline(work, home, nil, bin, "mcp", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("claude mcp list: %v\n%s", err, out)
	}
	for _, name := range []string{"marker", "remote-docs", catalog.SelfSessionServer} {
		if !strings.Contains(string(out), "\n"+name+": ") {
			t.Errorf("claude mcp list lists %s:\n%s", name, out)
		}
	}

	settings, err := catalog.ClaudeHookSettings(hooks)
	if err != nil {
		t.Fatal(err)
	}
	settingsPath := filepath.Join(t.TempDir(), claudeSettingsFile)
	if err := os.WriteFile(settingsPath, settings, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := spawnSpec{prompt: "hello", workDir: work, runtimeID: "7d1f2d36-8a47-4e61-9a55-3f1f7f0d3c11",
		configPath: cfg.Path, hooks: hooks, settingsPath: settingsPath}
	cmd := offline(work, home, cfg.Env, bin, claudeRuntime.argv(spec)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopGroup(cmd)
	ev := claudeInit(t, stdout)
	var servers []string
	for _, s := range ev.MCPServers {
		servers = append(servers, s.Name)
	}
	slices.Sort(servers)
	if want := []string{"marker", "remote-docs", catalog.SelfSessionServer}; !slices.Equal(servers, want) {
		t.Errorf("the turn's servers: %v, want %v", servers, want)
	}
	if !slices.Contains(ev.Skills, "lint") {
		t.Errorf("the catalog skill is offered: %v", ev.Skills)
	}
	waitFor(t, 10*time.Second, filepath.Join(marks, "server-started"), filepath.Join(marks, "hook-ran"))
}

type claudeInitEvent struct {
	MCPServers []struct{ Name, Status string } `json:"mcp_servers"`
	Skills     []string                        `json:"skills"`
}

// claudeInit reads the stream until Claude's system/init event, within a minute.
func claudeInit(t *testing.T, stdout interface{ Read([]byte) (int, error) }) claudeInitEvent {
	t.Helper()
	found := make(chan claudeInitEvent, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ev struct {
				Type, Subtype string
				claudeInitEvent
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "system" && ev.Subtype == "init" {
				found <- ev.claudeInitEvent
				return
			}
		}
		close(found)
	}()
	select {
	case ev, ok := <-found:
		if !ok {
			t.Fatal("claude ended without an init event")
		}
		return ev
	case <-time.After(time.Minute):
		t.Fatal("no init event from claude within a minute")
	}
	return claudeInitEvent{}
}

// The same for the real Codex CLI: `codex mcp list --json`, told to trust the working directory
// the way the runner does, lists every configured server with its resolved env, headers and
// startup budget; a turn spawned with the runner's own command line starts the stdio server and
// runs the catalog hook before it would wait on a model it cannot reach.
func TestRealCodexAcceptsTheConfigZimmerWrites(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(realCLIs(t), "codex")
	work, marks, _, hooks := realCLIWorkspace(t, catalog.RuntimeCodex)
	home := t.TempDir()

	list := offline(work, home, nil, bin, append([]string{"mcp", "list", "--json"}, catalog.CodexTrustArgs(work)...)...)
	var stderr strings.Builder
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		t.Fatalf("codex mcp list: %v\n%s%s", err, out, stderr.String())
	}
	var listed []struct {
		Name              string
		StartupTimeoutSec *float64 `json:"startup_timeout_sec"`
		Transport         struct {
			Type        string
			Command     string
			Env         map[string]string
			URL         string
			HTTPHeaders map[string]string `json:"http_headers"`
		}
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		t.Fatalf("codex mcp list --json: %v\n%s", err, out)
	}
	byName := map[string]int{}
	for i, s := range listed {
		byName[s.Name] = i
	}
	if len(listed) != 3 {
		t.Fatalf("codex lists the three configured servers: %s", out)
	}
	marker, remote, self := listed[byName["marker"]], listed[byName["remote-docs"]], listed[byName[catalog.SelfSessionServer]]
	if marker.Transport.Type != "stdio" || marker.Transport.Command != "sh" || marker.Transport.Env["MARK_FILE"] != filepath.Join(marks, "server-started") ||
		marker.StartupTimeoutSec == nil || *marker.StartupTimeoutSec != catalog.DefaultStartupTimeoutSec {
		t.Errorf("the stdio server as codex read it: %+v", marker)
	}
	if remote.Transport.Type != "streamable_http" || remote.Transport.HTTPHeaders["Authorization"] != "Bearer t0ken" ||
		remote.StartupTimeoutSec == nil || *remote.StartupTimeoutSec != 20 {
		t.Errorf("the remote server as codex read it: %+v", remote)
	}
	if self.Transport.HTTPHeaders["X-API-Key"] != "session-token" || !strings.Contains(self.Transport.URL, "tool_groups=self_session&session_id=7") {
		t.Errorf("the injected self-session server as codex read it: %+v", self)
	}

	spec := spawnSpec{prompt: "hello", workDir: work, hooks: hooks}
	cmd := offline(work, home, nil, bin, codexRuntime.argv(spec)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopGroup(cmd)
	waitFor(t, time.Minute, filepath.Join(marks, "server-started"), filepath.Join(marks, "hook-ran"))
}

// An OAuth server's token reaches Claude Code and Codex through their own credential stores, and
// they use it: the config Zimmer writes carries no Authorization header, yet Claude connects to
// the server with the token (an MCP server run by the test binary inside the CLI's network
// namespace, which has loopback and nothing else), and Codex reports the server as authorized by
// OAuth — which it does not without the entry Zimmer wrote.
func TestRealCLIsUseTheTokenZimmerPutsInTheirStore(t *testing.T) {
	t.Parallel()
	const token, port = "zimmer-store-token-0123456789", "8931" // a namespace of its own: any port is free
	for _, runtime := range []string{catalog.RuntimeClaude, catalog.RuntimeCodex} {
		t.Run(runtime, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			home, work, catDir := filepath.Join(base, "home"), filepath.Join(base, "work"), filepath.Join(base, "catalog")
			for _, d := range []string{home, work, catDir} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, text := range map[string]string{
				"roots.json": `{"r": {"url": "file:///nowhere"}}`,
				"mcp.json":   `{"notes": {"type": "streamable-http", "url": "http://127.0.0.1:` + port + `/mcp"}}`,
			} {
				if err := os.WriteFile(filepath.Join(catDir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cat, err := catalog.Load(catDir)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := cat.WriteRuntimeConfig(catalog.RuntimeConfigRequest{Runtime: runtime, WorkDir: work, SessionID: 7,
				Servers: []string{"notes"}, PublicURL: "http://127.0.0.1:9", Token: "session-token",
				OAuthTokens: map[string]catalog.OAuthToken{"notes": {AccessToken: token, ExpiresAt: time.Now().Add(time.Hour), ClientID: "zimmer-test"}},
				AgentEnv:    func(k string) string { return map[string]string{"HOME": home}[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(cfg.Path); strings.Contains(string(data), token) {
				t.Fatalf("the config carries the token:\n%s", data)
			}
			bin := filepath.Join(realCLIs(t), map[string]string{catalog.RuntimeClaude: "claude", catalog.RuntimeCodex: "codex"}[runtime])
			if runtime == catalog.RuntimeCodex {
				authStatus := func() string {
					out, err := offline(work, home, nil, bin, append([]string{"mcp", "list", "--json"}, catalog.CodexTrustArgs(work)...)...).Output()
					if err != nil {
						t.Fatalf("codex mcp list: %v\n%s", err, out)
					}
					var listed []struct {
						Name       string
						AuthStatus string `json:"auth_status"`
					}
					if err := json.Unmarshal(out, &listed); err != nil || len(listed) == 0 {
						t.Fatalf("codex mcp list --json: %v\n%s", err, out)
					}
					for _, s := range listed {
						if s.Name == "notes" {
							return s.AuthStatus
						}
					}
					t.Fatalf("codex does not list notes:\n%s", out)
					return ""
				}
				if got := authStatus(); got != "o_auth" {
					t.Errorf("with the token in its store, codex reports notes as %q, want o_auth", got)
				}
				if err := os.Remove(filepath.Join(home, ".codex", ".credentials.json")); err != nil {
					t.Fatal(err)
				}
				if got := authStatus(); got == "o_auth" {
					t.Error("without the store entry codex still reports notes authorized: the check proves nothing")
				}
				return
			}
			// `claude mcp list` connects only to approved project servers.
			if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"enableAllProjectMcpServers": true}`), 0o600); err != nil {
				t.Fatal(err)
			}
			seen := filepath.Join(base, "authorization.log")
			script := `ip link set lo up && { "$0" >/dev/null 2>&1 & } && ` +
				`until [ -e "$ZIMMER_RUNNER_BEARER_PROBE.ready" ]; do sleep 0.1; done && exec "$@"`
			cmd := offline(work, home, map[string]string{"ZIMMER_RUNNER_BEARER_PROBE": seen, "ZIMMER_RUNNER_BEARER_PORT": port,
				"ZIMMER_RUNNER_BEARER_WANT": token}, "sh", "-c", script, os.Args[0], bin, "mcp", "list")
			out, err := cmd.CombinedOutput()
			stopGroup(cmd) // the probe server
			if err != nil {
				t.Fatalf("claude mcp list: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "notes: http://127.0.0.1:"+port+"/mcp (HTTP) - ✔ Connected") {
				t.Errorf("claude connects to notes with the stored token:\n%s", out)
			}
			if got, _ := os.ReadFile(seen); !strings.Contains(string(got), "POST Bearer "+token) {
				t.Errorf("the server saw no request bearing the stored token:\n%s", got)
			}
		})
	}
}
