package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/runner"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// runnerLoad pushes o.runs sessions through one worker whose runtimes are the test suite's
// fake agent CLI (an agent that answers at once), so what is measured is Zimmer's own cost per
// turn: queue wait (created → claimed), spawn overhead (claimed → the CLI started: clone, MCP
// config, prompt, process), the whole turn (claimed → needs_input) and throughput.
func runnerLoad(ctx context.Context, store *graph.Store, o options, out io.Writer) error {
	if o.runs <= 0 {
		return nil
	}
	fmt.Fprintf(out, "\nsession runner: %d fake-agent sessions through one worker (agents lane: %d at a time):\n", o.runs, tasks.LaneConcurrency[tasks.LaneAgents])
	dir, err := os.MkdirTemp("", "zimmer-bench-runner-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	queue, err := benchQueue(ctx, o.redis)
	if err != nil {
		fmt.Fprintf(out, "  skipped: %v (set -redis or BENCH_REDIS_URL)\n", err)
		return nil
	}
	defer queue.Close()
	cat, err := benchFixtures(dir)
	if err != nil {
		return err
	}
	ops, stop, err := benchWorker(store, queue, cat, dir)
	if err != nil {
		return err
	}
	defer stop()
	start := time.Now()
	ids, err := createSessions(ctx, ops, o.runs)
	if err != nil {
		return err
	}
	done, err := awaitIdle(ctx, ops, ids, 5*time.Minute)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	reportTurns(out, done)
	fmt.Fprintf(out, "  %d turns in %s: %.1f turns/s\n", len(done), elapsed.Round(time.Millisecond), float64(len(done))/elapsed.Seconds())
	return nil
}

// benchQueue opens the bench's Redis and empties it: it holds only the bench's own queues.
func benchQueue(ctx context.Context, url string) (*tasks.Queue, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		// err quotes the URL whole, password included.
		return nil, fmt.Errorf("redis %q is not a redis://[:password@]host:port/db URL", config.RedactURL(url))
	}
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.FlushDB(ctx).Err(); err != nil {
		return nil, fmt.Errorf("no Redis at %s: %w", config.RedactURL(url), err)
	}
	return tasks.OpenQueue(url)
}

// benchFixtures builds the fake agent and a one-commit repository, and a catalog whose one
// root clones it.
func benchFixtures(dir string) (*catalog.Catalog, error) {
	if err := buildFakeAgent(filepath.Join(dir, "fakeagent")); err != nil {
		return nil, err
	}
	repo := filepath.Join(dir, "repo")
	script := `set -e; git init -q -b main "$1"; cd "$1"; echo bench > README
git -c user.name=b -c user.email=b@example.invalid add -A; git -c user.name=b -c user.email=b@example.invalid commit -q -m init`
	if out, err := exec.Command("bash", "-c", script, "bash", repo).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make the bench repository: %v\n%s", err, out)
	}
	catDir := filepath.Join(dir, "catalog")
	files := map[string]string{
		"roots.json":    fmt.Sprintf(`{"bench": {"url": %q, "default_branch": "main"}}`, "file://"+repo),
		"mcp.json":      `{}`,
		"runtimes.json": `{"claude_code": {"models": [{"id": "opus", "default": true}]}}`,
	}
	if err := os.MkdirAll(catDir, 0o755); err != nil {
		return nil, err
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(catDir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	return catalog.Load(catDir)
}

// buildFakeAgent builds the runner tests' fake CLI, found from the module root so the bench
// runs from any directory of the repository.
func buildFakeAgent(to string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	src := filepath.Join(root, "jobs", "runner", "testdata", "fakeagent")
	cmd := exec.Command("go", "build", "-o", to, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the fake agent: %v\n%s", err, out)
	}
	return nil
}

// benchWorker serves the API (the injected MCP entries point at it) and runs one worker whose
// Claude CLI is the fake agent.
func benchWorker(store *graph.Store, queue *tasks.Queue, cat *catalog.Catalog, dir string) (*orchestrator.Service, func(), error) {
	discard := serviceLog()
	ops := orchestrator.New(orchestrator.Deps{Store: store, Queue: queue, Catalog: cat, Log: discard, DataDir: filepath.Join(dir, "data")})
	key := rand.Text()
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: ops, Metrics: metrics.New(), Log: discard, APIKeys: []string{key}}))
	r, err := runner.New(ops, queue, discard, runner.Options{DataDir: filepath.Join(dir, "data"), PublicURL: srv.URL,
		Bins: map[string]string{catalog.RuntimeClaude: filepath.Join(dir, "fakeagent")}, SweepEvery: time.Hour})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	w := jobs.NewWorker(queue, discard, 10*time.Second)
	r.Register(w)
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = w.Run(wctx); close(done) }()
	return ops, func() { cancel(); <-done; srv.Close() }, nil
}

// moduleRoot is the repository's root, so the bench builds what it needs from any directory.
func moduleRoot() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod))), nil
}

func createSessions(ctx context.Context, ops *orchestrator.Service, n int) ([]int64, error) {
	root, prompt := "bench", "say hello"
	ids := make([]int64, 0, n)
	for range n {
		c, err := ops.Create(ctx, orchestrator.CreateParams{AgentRoot: &root, Prompt: &prompt, Genesis: session.GenesisAPI})
		if err != nil {
			return nil, fmt.Errorf("create a bench session: %w", err)
		}
		ids = append(ids, c.Session.ID)
	}
	return ids, nil
}

// awaitIdle polls until every session has finished its turn; a failed one fails the check.
func awaitIdle(ctx context.Context, ops *orchestrator.Service, ids []int64, limit time.Duration) ([]*session.Session, error) {
	deadline := time.Now().Add(limit)
	done := map[int64]*session.Session{}
	for len(done) < len(ids) {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d bench sessions finished within %s", len(done), len(ids), limit)
		}
		for _, id := range ids {
			if done[id] != nil {
				continue
			}
			s, err := ops.Get(ctx, id)
			if err != nil {
				return nil, err
			}
			switch s.Status {
			case session.StatusFailed:
				return nil, fmt.Errorf("bench session %d failed: %v", id, s.Metadata[session.MetaFailureMessage])
			case session.StatusNeedsInput:
				done[id] = s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	out := make([]*session.Session, 0, len(done))
	for _, id := range ids {
		out = append(out, done[id])
	}
	return out, nil
}

// reportTurns reads each turn's timeline from what the runner recorded: created_at, the claim
// (job_started_at), the CLI's start (the transcript's turn marker) and the pause (updated_at).
func reportTurns(out io.Writer, list []*session.Session) {
	var wait, spawn, turn []time.Duration
	for _, s := range list {
		claimed, err := time.Parse(time.RFC3339Nano, fmt.Sprint(s.Metadata[session.MetaJobStartedAt]))
		if err != nil {
			continue
		}
		wait = append(wait, claimed.Sub(s.CreatedAt))
		turn = append(turn, s.UpdatedAt.Sub(claimed))
		if started, err := markerTime(s); err == nil {
			spawn = append(spawn, started.Sub(claimed))
		}
	}
	report(out, "  queue wait (created → claimed)", wait)
	report(out, "  spawn overhead (claimed → CLI started)", spawn)
	report(out, "  whole turn (claimed → needs_input)", turn)
}

// markerTime is when the runner started the session's CLI: its transcript's first turn marker.
func markerTime(s *session.Session) (time.Time, error) {
	path := session.BagString(s.Metadata, session.MetaTranscriptPath)
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	var first struct {
		StartedAt time.Time `json:"started_at"`
	}
	if err := jsonFirstLine(f, &first); err != nil {
		return time.Time{}, err
	}
	if first.StartedAt.IsZero() {
		return time.Time{}, errors.New("no turn marker")
	}
	return first.StartedAt, nil
}

func jsonFirstLine(r io.Reader, into any) error {
	line, err := bufio.NewReader(r).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return err
	}
	return json.Unmarshal(line, into)
}
