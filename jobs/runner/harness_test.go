package runner_test

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/runner"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// This package's own Redis databases: the shared environment, environments a test builds for
// itself (one at a time), and the out-of-process worker of the kill test.
const (
	sharedDB  = 8
	privateDB = 9
	childDB   = 10
)

const apiKey = "runner-test-key-0123456789abcdef"

// The web UI's credential, for the tests that watch a run in the browser.
const webUser, webPassword = "runner", "runner-web-password"

var (
	tmpRoot   string // removed when the tests end; the shared environment's data lives here
	fakeAgent string // the built fake CLI
	repoURL   string // file:// URL of a local git repository with a sub/ directory
	catDir    string // the test catalog
)

// TestMain builds the fake agent CLI and a local repository once; run as ZIMMER_RUNNER_CHILD=1
// it is instead the out-of-process worker the kill test starts and kills.
func TestMain(m *testing.M) {
	if os.Getenv("ZIMMER_RUNNER_CHILD") == "1" {
		os.Exit(childWorker())
	}
	if log := os.Getenv("ZIMMER_RUNNER_BEARER_PROBE"); log != "" {
		os.Exit(bearerProbe(log))
	}
	dir, err := os.MkdirTemp("", "zimmer-runner-test-")
	if err != nil {
		panic(err)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if err := setupFixtures(dir); err != nil {
			fmt.Fprintln(os.Stderr, "runner tests:", err)
			return 1
		}
		tmpRoot = dir
		defer func() {
			if sharedEnv != nil {
				sharedEnv.stop() // before its data directory goes
			}
		}()
		return m.Run()
	}()
	os.Exit(code)
}

func setupFixtures(dir string) error {
	fakeAgent = filepath.Join(dir, "fakeagent")
	if out, err := exec.Command("go", "build", "-o", fakeAgent, "./testdata/fakeagent").CombinedOutput(); err != nil {
		return fmt.Errorf("build the fake agent: %v\n%s", err, out)
	}
	repo := filepath.Join(dir, "repo")
	script := `set -e
git init -q -b main "$1"
cd "$1"
mkdir sub && echo hello > sub/README && echo root > README
git -c user.name=t -c user.email=t@example.invalid add -A
git -c user.name=t -c user.email=t@example.invalid commit -q -m init`
	if out, err := exec.Command("bash", "-c", script, "bash", repo).CombinedOutput(); err != nil {
		return fmt.Errorf("make the test repository: %v\n%s", err, out)
	}
	repoURL = "file://" + repo
	catDir = filepath.Join(dir, "catalog")
	return writeCatalog(catDir, repoURL)
}

// writeCatalog: parent (spawns child), child, solo (with an npx server by default), a server
// whose secret is never set, a skill, a hook and a plugin bundling them with a server.
func writeCatalog(dir, repo string) error {
	files := map[string]string{
		"roots.json": fmt.Sprintf(`{
  "parent": {"url": %[1]q, "default_branch": "main"},
  "child": {"url": %[1]q, "default_branch": "main", "default_in_roots": ["parent"]},
  "solo": {"url": %[1]q, "default_branch": "main", "subdirectory": "sub"}
}`, repo),
		"mcp.json": `{
  "docs": {"type": "stdio", "command": "npx", "args": ["-y", "docs-mcp@latest"], "default_in_roots": ["solo"]},
  "slowpoke": {"type": "stdio", "command": "node", "args": ["slow.js"], "startup_timeout_sec": 240, "default_in_roots": ["solo"]},
  "needs-secret": {"type": "stdio", "command": "node", "env": {"TOKEN": "${RUNNER_TEST_NEVER_SET}"}},
  "fleet-tool": {"type": "stdio", "command": "node", "env": {"TOKEN": "${RUNNER_TEST_FLEET_TOKEN}"}},
  "greedy": {"type": "stdio", "command": "node", "env": {"KEYS": "${API_KEYS}", "GRAPH": "${NEO4J_PASSWORD:-none}"}}
}`,
		"skills.json":          `{"lint": {"description": "Lint before committing."}}`,
		"skills/lint/SKILL.md": "Run the linter.\n",
		"hooks.json":           `{"stamp": {"event": "SessionStart", "command": "date > .stamp"}}`,
		"plugins.json":         `{"kit": {"mcp_servers": ["slowpoke"], "skills": ["lint"], "hooks": ["stamp"]}}`,
		"runtimes.json": `{
  "claude_code": {"models": [{"id": "opus", "default": true}, {"id": "sonnet"}]},
  "codex": {"models": [{"id": "gpt-5.4", "default": true}]},
  "pi": {"models": [{"id": "sonnet", "default": true}]}
}`,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// env is a whole Zimmer on the test services: the API (REST and MCP) on an httptest server, and
// a worker with the runner pointed at it.
type env struct {
	srv     *httptest.Server
	store   *graph.Store
	queue   *tasks.Queue
	ops     *orchestrator.Service
	runner  *runner.Runner
	dataDir string
	log     string // the fake agent's invocation log
	metrics *metrics.Metrics
	runs    *metrics.Runs
	stop    func() // stops the worker and waits for it
}

type envOptions struct {
	db       int
	redisURL string // a Redis of the test's own instead of db
	bins     map[string]string
	noWork   bool // no in-process worker (the kill test runs its own)
	dataDir  string
	grace    time.Duration
	secrets  string        // ZIMMER_SECRETS_FILE
	catalog  string        // a catalog folder of the test's own ("" is catDir)
	mcpRetry time.Duration // the MCP connection ladder's base (30 s when 0)
	oauth    orchestrator.OAuthConfig
}

var (
	sharedOnce sync.Once
	sharedEnv  *env
)

// shared is the environment most tests use: one worker for the whole package.
func shared(t *testing.T) *env {
	t.Helper()
	sharedOnce.Do(func() { sharedEnv = build(t, envOptions{db: sharedDB}, false) })
	if sharedEnv == nil {
		t.Fatal("the shared environment failed to start")
	}
	return sharedEnv
}

// private is an environment of the test's own, stopped when the test ends.
func private(t *testing.T, o envOptions) *env {
	t.Helper()
	if o.db == 0 {
		o.db = privateDB
	}
	return build(t, o, true)
}

func build(t *testing.T, o envOptions, cleanup bool) *env {
	t.Helper()
	url := o.redisURL
	if url == "" {
		graphtest.FlushRedis(t, o.db)
		url = graphtest.RedisURL(o.db)
	}
	store := graphtest.Store(t)
	queue, err := tasks.OpenQueue(url)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(cmp.Or(o.catalog, catDir))
	if err != nil {
		t.Fatal(err)
	}
	log := logger()
	m := metrics.New()
	dataDir := o.dataDir
	if dataDir == "" {
		dataDir = t.TempDir()
		if !cleanup { // the shared environment outlives the test that made it
			dataDir, _ = os.MkdirTemp(tmpRoot, "shared-")
		}
	}
	ops := orchestrator.New(orchestrator.Deps{Store: store, Queue: queue, Catalog: cat, Log: log, DataDir: dataDir,
		TriggerSettle: 500 * time.Millisecond, OAuth: o.oauth})
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: ops, Metrics: m, Log: log, APIKeys: []string{apiKey},
		Web: web.Config{User: webUser, Password: webPassword}}))
	e := &env{srv: srv, store: store, queue: queue, ops: ops, metrics: m, dataDir: dataDir, stop: func() {}}
	e.log = filepath.Join(e.dataDir, "fakeagent.log")
	e.runs = m.RegisterRuns()
	e.runner = e.newRunner(t, o, e.runs)
	m.RegisterLaneDepths(queue.LaneDepths)
	if !o.noWork {
		e.startWorker(t, o.grace)
	}
	if cleanup {
		t.Cleanup(func() { e.stop(); srv.Close(); queue.Close() })
	}
	return e
}

func (e *env) newRunner(t *testing.T, o envOptions, runs *metrics.Runs) *runner.Runner {
	t.Helper()
	bins := o.bins
	if bins == nil {
		bins = map[string]string{catalog.RuntimeClaude: fakeAgent, catalog.RuntimeCodex: fakeAgent, catalog.RuntimePi: fakeAgent}
	}
	r, err := runner.New(e.ops, e.queue, logger(), runner.Options{
		DataDir: e.dataDir, PublicURL: e.srv.URL, Bins: bins, Runs: runs,
		Tick: 50 * time.Millisecond, LeaseTTL: time.Second, TermGrace: 2 * time.Second,
		SweepEvery: time.Hour, SweepGrace: 200 * time.Millisecond, SweepScope: e.dataDir, SecretsFile: o.secrets, RetryBase: 100 * time.Millisecond, MCPRetryBase: o.mcpRetry,
		// The CLIs' own homes are the env's (their credential stores are written there), never the machine's.
		Environ: func() []string {
			return append(os.Environ(), append(leakyEnv(), "FAKEAGENT_LOG="+e.log, "CLAUDE_CONFIG_DIR="+filepath.Join(e.dataDir, "claude-home"),
				"CODEX_HOME="+filepath.Join(e.dataDir, "codex-home"))...)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) startWorker(t *testing.T, grace time.Duration) {
	t.Helper()
	if grace == 0 {
		grace = 10 * time.Second
	}
	w := jobs.NewWorker(e.queue, logger(), grace)
	e.runner.Register(w)
	jobs.RegisterTriggers(w, e.ops, jobs.TriggerOptions{ScheduleEvery: time.Hour, Scope: e.dataDir})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	e.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
		e.stop = func() {}
	}
}

func logger() *slog.Logger { return graphtest.Logger() }

// leakyEnv gives the worker every variable Zimmer reads, each set to a value no agent may see.
func leakyEnv() []string {
	var env []string
	for _, name := range config.Variables {
		env = append(env, name+"=leak-"+name)
	}
	return append(env, "ZIMMER_SOMETHING_NEW=leak-new")
}

// create starts a session over REST and returns its id.
func (e *env) create(t *testing.T, body map[string]any) int64 {
	t.Helper()
	if _, ok := body["agent_root"]; !ok {
		body["agent_root"] = "solo"
	}
	// The label this environment's sweep is scoped to (other packages' sessions share the graph).
	body["custom_metadata"] = map[string]any{"runner_test_env": e.dataDir}
	status, out := e.do(t, http.MethodPost, "/api/v1/sessions", body)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, out)
	}
	return int64(out["session"].(map[string]any)["id"].(float64))
}

func (e *env) do(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	r := handlerstest.Do(t, http.DefaultClient, method, e.srv.URL+path, body, "X-API-Key", apiKey)
	if r.Body == nil {
		return r.Status, map[string]any{"raw": r.Raw}
	}
	return r.Status, r.Body
}

func (e *env) get(t *testing.T, id int64) *session.Session {
	t.Helper()
	s, err := e.ops.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitFor polls the session until ok says yes, failing after timeout with the last state.
func (e *env) waitFor(t *testing.T, id int64, what string, timeout time.Duration, ok func(*session.Session) bool) *session.Session {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := e.get(t, id)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %d: waited %s for %s; it is %s with metadata %v", id, timeout, what, s.Status, s.Metadata)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (e *env) waitStatus(t *testing.T, id int64, st session.Status) *session.Session {
	t.Helper()
	return e.waitFor(t, id, string(st), 20*time.Second, func(s *session.Session) bool { return s.Status == st })
}

// waitSpawned waits until the session's turn has a live process.
func (e *env) waitSpawned(t *testing.T, id int64) int {
	t.Helper()
	s := e.waitFor(t, id, "a spawned process", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusRunning && pidOf(s) > 0
	})
	return pidOf(s)
}

func pidOf(s *session.Session) int {
	v, _ := s.Metadata[session.MetaProcessPID].(float64)
	return int(v)
}

// transcript is the session's transcript file, one decoded line each (none before it ran).
func (e *env) transcript(t *testing.T, id int64) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(e.dataDir, "transcripts", strconv.FormatInt(id, 10)+".jsonl"))
	if os.IsNotExist(err) {
		return nil // not run yet
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("transcript line is not JSON: %s", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// turns are the transcript's turn markers.
func turns(lines []map[string]any) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["type"] == "zimmer_turn" {
			out = append(out, l)
		}
	}
	return out
}

// invocations are the fake agent's logged runs for one session.
func (e *env) invocations(t *testing.T, id int64) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range e.allInvocations(t) {
		if m["env"].(map[string]any)["ZIMMER_SESSION_ID"] == strconv.FormatInt(id, 10) {
			out = append(out, m)
		}
	}
	return out
}

// allInvocations are every logged run of the fake agent.
func (e *env) allInvocations(t *testing.T) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(e.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func argv(inv map[string]any) []string {
	var out []string
	for _, a := range inv["argv"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// gone: the process no longer runs (it may linger as a zombie of a parent that never reaps).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// childWorker is the out-of-process worker: the runner and a worker on childDB, configured from
// the environment the kill test passes, running until it is killed.
func childWorker() int {
	ctx := context.Background()
	opt := graphtest.Neo4jOptions()
	opt.Logger = logger()
	store, err := graph.Open(ctx, opt, 20*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	url := os.Getenv("ZIMMER_RUNNER_CHILD_REDIS")
	if url == "" {
		url = graphtest.RedisURL(childDB)
	}
	queue, err := tasks.OpenQueue(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cat, err := catalog.Load(os.Getenv("ZIMMER_RUNNER_CHILD_CATALOG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ops := orchestrator.New(orchestrator.Deps{Store: store, Queue: queue, Catalog: cat, Log: logger(),
		DataDir: os.Getenv("ZIMMER_RUNNER_CHILD_DATA")})
	bin := os.Getenv("ZIMMER_RUNNER_CHILD_AGENT")
	r, err := runner.New(ops, queue, logger(), runner.Options{DataDir: os.Getenv("ZIMMER_RUNNER_CHILD_DATA"),
		PublicURL: os.Getenv("ZIMMER_RUNNER_CHILD_URL"), Tick: 50 * time.Millisecond, LeaseTTL: time.Second,
		SweepEvery: time.Hour, SweepScope: os.Getenv("ZIMMER_RUNNER_CHILD_DATA"), Bins: map[string]string{catalog.RuntimeClaude: bin, catalog.RuntimeCodex: bin, catalog.RuntimePi: bin}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := jobs.NewWorker(queue, logger(), 10*time.Second)
	r.Register(w)
	if err := w.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
