package runner_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/catalog/catalogtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func TestClaudeTurnEndsInNeedsInputWithTranscriptUsageAndConfig(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "hello there", "goal": "say hello", "agent_root": "parent"})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	if s.RunningJobID != nil || s.Metadata[session.MetaRuntimeStarted] != true || s.RuntimeSessionID == nil {
		t.Fatalf("a finished turn releases the session and records the runtime: %+v", s)
	}
	lines := e.transcript(t, id)
	if len(turns(lines)) != 1 || !strings.Contains(turns(lines)[0]["prompt"].(string), "<goal>") {
		t.Fatalf("one turn, its prompt carrying the goal: %v", turns(lines))
	}
	prompt := turns(lines)[0]["prompt"].(string)
	if !strings.HasPrefix(prompt, "hello there") || !strings.Contains(prompt, "say hello") {
		t.Fatalf("prompt: %s", prompt)
	}
	if s.Metadata[session.MetaTranscriptPath] != filepath.Join(e.dataDir, "transcripts", itoa(id)+".jsonl") {
		t.Fatalf("transcript pointer: %v", s.Metadata[session.MetaTranscriptPath])
	}
	usage, err := e.ops.TokenUsage(context.Background(), id)
	if err != nil || len(usage) != 1 || usage[0].InputTokens != 100 || usage[0].Model != "opus" || usage[0].AgentRuntime != "claude_code" {
		t.Fatalf("one assistant message, one ledger row: %+v %v", usage, err)
	}

	// The config: a parent root gets the zimmer entry (which covers self-session), stamped.
	servers := catalogtest.MCPServers(t, s.Metadata[session.MetaConfigPath].(string))
	if u := servers["zimmer"]["url"]; u != e.srv.URL+"/mcp?allowed_agent_roots=child&session_id="+itoa(id) {
		t.Fatalf("zimmer entry: %v", servers["zimmer"])
	}
	if !slices.Equal(s.InjectedMCPServers(), []string{"zimmer"}) {
		t.Fatalf("injected: %v", s.InjectedMCPServers())
	}

	inv := e.invocations(t, id)
	if len(inv) != 1 {
		t.Fatalf("one invocation: %v", inv)
	}
	args := argv(inv[0])
	for _, want := range []string{"-p", "--output-format", "stream-json", "--verbose", "--mcp-config", "--session-id", *s.RuntimeSessionID, "--model", "opus"} {
		if !slices.Contains(args, want) {
			t.Errorf("claude argv lacks %q: %v", want, args)
		}
	}
	envs := inv[0]["env"].(map[string]any)
	if envs["MCP_TIMEOUT"] != "180000" || envs["NPM_CONFIG_CACHE"] == nil || envs["API_KEYS"] != nil || envs["NEO4J_PASSWORD"] != nil {
		t.Fatalf("claude env: MCP_TIMEOUT and the npm cache set, Zimmer's secrets scrubbed: %v", envs)
	}

	// A follow-up resumes the same conversation.
	if status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "again"}); status != http.StatusOK {
		t.Fatalf("follow-up: %d %v", status, out)
	}
	e.waitFor(t, id, "the second turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, id)) == 2
	})
	second := argv(e.invocations(t, id)[1])
	if i := slices.Index(second, "--resume"); i < 0 || second[i+1] != *s.RuntimeSessionID {
		t.Fatalf("the second turn resumes the conversation: %v", second)
	}
}

func TestCodexCapturesItsThreadAndResumesIt(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "first", "agent_runtime": "codex"})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	if s.RuntimeSessionID == nil || !strings.HasPrefix(*s.RuntimeSessionID, "thread-") {
		t.Fatalf("codex's own thread id is the runtime id: %v", s.RuntimeSessionID)
	}
	var doc map[string]any
	if _, err := toml.DecodeFile(s.Metadata[session.MetaConfigPath].(string), &doc); err != nil {
		t.Fatalf("config.toml: %v", err)
	}
	mcp := doc["mcp_servers"].(map[string]any)
	docs := mcp["docs"].(map[string]any)
	if docs["startup_timeout_sec"] != int64(180) || docs["env"].(map[string]any)["NPM_CONFIG_CACHE"] != filepath.Join(s.Metadata[session.MetaWorkDir].(string), ".npm-cache") {
		t.Fatalf("npx stdio entry: %v", docs)
	}
	if mcp["slowpoke"].(map[string]any)["startup_timeout_sec"] != int64(240) {
		t.Fatalf("declared budget: %v", mcp["slowpoke"])
	}
	self := mcp[catalog.SelfSessionServer].(map[string]any)
	if token, _ := self["http_headers"].(map[string]any)["X-API-Key"].(string); self["url"] != e.srv.URL+"/mcp?tool_groups=self_session&session_id="+itoa(id) ||
		!strings.HasPrefix(token, orchestrator.SessionTokenPrefix) {
		t.Fatalf("self-session entry (the session's own token, never the fleet key): %v", self)
	}
	if raw, _ := os.ReadFile(s.Metadata[session.MetaConfigPath].(string)); strings.Contains(string(raw), apiKey) {
		t.Fatalf("the fleet key reached the agent's config:\n%s", raw)
	}
	if usage, _ := e.ops.TokenUsage(context.Background(), id); len(usage) != 1 || usage[0].Model != "gpt-5.4" || usage[0].CacheReadTokens != 100 {
		t.Fatalf("codex turn usage (model from the session): %+v", usage)
	}
	e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "second"})
	e.waitFor(t, id, "the second turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(e.invocations(t, id)) == 2
	})
	second := argv(e.invocations(t, id)[1])
	if len(second) < 4 || second[1] != "exec" || second[2] != "resume" || second[3] != *s.RuntimeSessionID {
		t.Fatalf("codex resumes with exec resume <thread>: %v", second)
	}
	if s.Metadata[session.MetaWorkDir] != filepath.Join(e.dataDir, "workspaces", itoa(id), "repo", "sub") {
		t.Fatalf("the root's subdirectory is the working directory: %v", s.Metadata[session.MetaWorkDir])
	}
}

func TestPiGetsRequestTimeoutsAndKeepsItsSessionID(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "first", "agent_runtime": "pi"})
	s := e.waitStatus(t, id, session.StatusNeedsInput)
	servers := catalogtest.MCPServers(t, s.Metadata[session.MetaConfigPath].(string))
	if servers["docs"]["requestTimeoutMs"] != float64(180000) || servers["slowpoke"]["requestTimeoutMs"] != float64(240000) {
		t.Fatalf("pi budgets: %v %v", servers["docs"], servers["slowpoke"])
	}
	if _, ok := servers[catalog.SelfSessionServer]["requestTimeoutMs"]; ok {
		t.Fatal("remote entries get no default budget")
	}
	inv := e.invocations(t, id)
	if i := slices.Index(argv(inv[0]), "--session-id"); i < 0 || argv(inv[0])[i+1] != *s.RuntimeSessionID {
		t.Fatalf("pi gets the minted id: %v", argv(inv[0]))
	}
	if _, ok := inv[0]["env"].(map[string]any)["MCP_TIMEOUT"]; ok {
		t.Fatal("MCP_TIMEOUT is Claude's alone")
	}
}

func TestFollowUpQueuedDuringARunIsDeliveredAtTheTurnEnd(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "SLEEP 1"})
	e.waitSpawned(t, id)
	status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up", map[string]any{"prompt": "queued while running"})
	if status != http.StatusAccepted {
		t.Fatalf("a follow-up to a running session is queued: %d %v", status, out)
	}
	e.waitFor(t, id, "both turns", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	second := turns(e.transcript(t, id))[1]
	if !strings.HasPrefix(second["prompt"].(string), "queued while running") || second["reason"] != "queued_message" || second["resume"] != true {
		t.Fatalf("the queued message is the next turn: %v", second)
	}
	if n, _ := e.store.CountPendingMessages(context.Background(), id); n != 0 {
		t.Fatalf("%d messages still pending", n)
	}
}

func TestInterruptEndsTheRunAndTheNextTurnCarriesTheMessage(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "SLEEP 30"})
	pid := e.waitSpawned(t, id)
	start := time.Now()
	status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/follow_up",
		map[string]any{"prompt": "stop and do this instead", "force_immediate": true})
	if status != http.StatusOK {
		t.Fatalf("interrupt: %d %v", status, out)
	}
	e.waitFor(t, id, "the interrupting turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	if time.Since(start) > 15*time.Second {
		t.Fatalf("the sleeping turn was not cut short (%s)", time.Since(start))
	}
	waitGone(t, pid)
	second := turns(e.transcript(t, id))[1]
	if !strings.HasPrefix(second["prompt"].(string), "stop and do this instead") || second["resume"] != true {
		t.Fatalf("the next turn carries the message: %v", second)
	}
	if _, ok := e.get(t, id).Metadata[session.MetaInterruptRequestedAt]; ok {
		t.Fatal("the interrupt flag belongs to the ended turn")
	}
}

func TestMissingBinaryFailsTheSessionNamingIt(t *testing.T) {
	e := private(t, envOptions{bins: map[string]string{catalog.RuntimeClaude: "/nonexistent/bin/claude"}})
	id := e.create(t, map[string]any{"prompt": "hello"})
	s := e.waitStatus(t, id, session.StatusFailed)
	msg, _ := s.Metadata[session.MetaFailureMessage].(string)
	if s.Metadata[session.MetaFailureReason] != orchestrator.FailureSpawn || !strings.Contains(msg, "/nonexistent/bin/claude") || !strings.Contains(msg, "ZIMMER_CLAUDE_BIN") {
		t.Fatalf("spawn_failed naming the binary and its variable: %v", s.Metadata)
	}
	if s.RunningJobID != nil {
		t.Fatal("a failed session is owned by no job")
	}
}

func TestNonZeroExitFailsWithProcessFailed(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "EXIT 3"})
	s := e.waitStatus(t, id, session.StatusFailed)
	if s.Metadata[session.MetaFailureReason] != orchestrator.FailureProcess || s.Metadata[session.MetaExitStatus] != float64(3) ||
		!strings.Contains(s.Metadata[session.MetaFailureDetail].(string), "exiting with 3") {
		t.Fatalf("process_failed with the exit status and stderr: %v", s.Metadata)
	}
}

func TestCloneAndSecretFailures(t *testing.T) {
	e := shared(t)
	badRepo := e.create(t, map[string]any{"prompt": "hi", "agent_root": nil, "git_root": "file:///nonexistent/repo.git"})
	secret := e.create(t, map[string]any{"prompt": "hi", "mcp_servers": []string{"needs-secret"}})
	s := e.waitStatus(t, badRepo, session.StatusFailed)
	if s.Metadata[session.MetaFailureReason] != orchestrator.FailureGitClone || !strings.Contains(s.Metadata[session.MetaFailureMessage].(string), "/nonexistent/repo.git") {
		t.Fatalf("git_clone_failed: %v", s.Metadata)
	}
	s = e.waitStatus(t, secret, session.StatusFailed)
	vars, _ := s.Metadata[session.MetaUnresolvedVariables].([]any)
	if s.Metadata[session.MetaFailureReason] != orchestrator.FailureSecret || len(vars) != 1 || vars[0] != "RUNNER_TEST_NEVER_SET" {
		t.Fatalf("air_secret_unresolvable naming the variable: %v", s.Metadata)
	}
	// A restart after a pre-prompt failure re-sends the original prompt.
	os.Setenv("RUNNER_TEST_NEVER_SET", "now-set")
	defer os.Unsetenv("RUNNER_TEST_NEVER_SET")
	if status, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(secret)+"/restart", nil); status != http.StatusOK {
		t.Fatalf("restart: %d %v", status, out)
	}
	s = e.waitStatus(t, secret, session.StatusNeedsInput)
	if got := turns(e.transcript(t, secret)); len(got) != 1 || !strings.HasPrefix(got[0]["prompt"].(string), "hi") {
		t.Fatalf("restart from scratch with the original prompt: %v", got)
	}
	if _, ok := s.Metadata[session.MetaFailureReason]; ok {
		t.Fatal("a restart clears the failure")
	}
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }
