package orchestrator_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/agentproc"
	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// healthEnv is a service on a Redis of the test's own (its lanes, halts and cooldowns are the
// test's alone) and a host name of its own (the cleanup reaches only this test's sessions).
type healthEnv struct {
	orchestratortest.Env
	redis *graphtest.Redis
	host  string
	fleet string // what the fleet-wide actions' sessions mention
}

func newHealthEnv(t *testing.T, o orchestratortest.Options) healthEnv {
	t.Helper()
	r := graphtest.StartRedis(t, graphtest.Unique(t, "pw"))
	o.RedisURL, o.Host, o.FleetScope = r.URL, graphtest.Unique(t, "host"), graphtest.Unique(t, "fleet")
	return healthEnv{Env: orchestratortest.New(t, o), redis: r, host: o.Host, fleet: o.FleetScope}
}

// session creates a session of this test's fleet.
func (e healthEnv) session(t *testing.T, edit func(*session.Session)) *session.Session {
	t.Helper()
	return graphtest.Session(t, e.Store, func(s *session.Session) {
		s.CustomMetadata["fleet"] = e.fleet
		edit(s)
	})
}

func asCaller(key string) context.Context {
	return orchestrator.WithCaller(context.Background(), orchestrator.Caller{Credential: orchestrator.CredentialFleetKey, KeyDigest: orchestrator.CallerDigest(key)})
}

func TestTheHealthReportCoversQueuesSessionsStoresDiskAndMissingSecretNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "roots.json"), `{}`)
	writeFile(t, filepath.Join(dir, "mcp.json"), `{"needs": {"command": "node", "env": {"T": "${HEALTH_NEEDED_TOKEN}", "S": "${HEALTH_SET_TOKEN}"}}}`)
	data := t.TempDir()
	writeFile(t, filepath.Join(data, "workspaces", "1", "repo", "a.txt"), strings.Repeat("x", 100))
	writeFile(t, filepath.Join(data, "transcripts", "1.jsonl"), strings.Repeat("y", 50))
	env := newHealthEnv(t, orchestratortest.Options{CatalogDir: dir, DataDir: data, Variables: catalog.Variables{
		Env: func(k string) (string, bool) { return "secret-value", k == "HEALTH_SET_TOKEN" }}})
	conn, _ := asynq.ParseRedisURI(env.redis.URL)
	client := asynq.NewClient(conn)
	defer client.Close()
	if _, err := client.Enqueue(asynq.NewTask("demo:waiting", nil, asynq.Queue(tasks.LaneDefault))); err != nil {
		t.Fatal(err)
	}
	graphtest.Session(t, env.Store, func(s *session.Session) { s.Status = session.StatusFailed })

	r := env.Ops.SystemHealth(context.Background())
	if r.Recovery.Err != nil || r.Recovery.Active() || r.LanesErr != nil || r.SessionsErr != nil || r.Neo4j.Err != nil || r.Redis.Err != nil {
		t.Fatalf("report with every store up: %+v", r)
	}
	var def tasks.LaneHealth
	for _, l := range r.Lanes {
		if l.Lane == tasks.LaneDefault {
			def = l
		}
	}
	if len(r.Lanes) != len(tasks.Lanes()) || def.Pending != 1 || def.HeadType != "demo:waiting" {
		t.Errorf("lanes = %+v; want every lane, demo:waiting ready on default", r.Lanes)
	}
	if r.Sessions[session.StatusFailed] < 1 || len(r.Sessions) != len(session.Statuses) {
		t.Errorf("sessions by status = %v; want every status, at least one failed", r.Sessions)
	}
	if r.Neo4j.Latency <= 0 || r.Redis.Latency <= 0 {
		t.Errorf("latencies neo4j %s, redis %s; want measured", r.Neo4j.Latency, r.Redis.Latency)
	}
	if r.Workspaces.Bytes != 100 || r.Workspaces.Files != 1 || r.Transcripts.Bytes != 50 || r.Workspaces.Truncated {
		t.Errorf("disk = workspaces %+v, transcripts %+v; want 100 bytes in 1 file and 50 bytes", r.Workspaces, r.Transcripts)
	}
	if !slices.Equal(r.Secrets.Missing, []string{"HEALTH_NEEDED_TOKEN"}) {
		t.Errorf("missing secrets = %v; want the one unset name", r.Secrets.Missing)
	}

	env.redis.Stop()
	down := env.Ops.SystemHealth(context.Background())
	if down.Redis.Err == nil || down.LanesErr == nil || down.Recovery.Err == nil {
		t.Errorf("with Redis stopped the report must say so per section: redis %v, lanes %v, recovery %v", down.Redis.Err, down.LanesErr, down.Recovery.Err)
	}
	if down.SessionsErr != nil || down.Neo4j.Err != nil || down.Sessions[session.StatusFailed] < 1 {
		t.Errorf("with Redis stopped the graph sections still answer: %v, %v, %v", down.SessionsErr, down.Neo4j.Err, down.Sessions)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// agent starts a stand-in agent CLI in its own process group, working in dir.
func agent(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	return cmd
}

func TestCleanupEndsOnlyAgentsWhoseSessionNoLongerRuns(t *testing.T) {
	env := newHealthEnv(t, orchestratortest.Options{})
	withProcess := func(status session.Status, pid int) *session.Session {
		return env.session(t, func(s *session.Session) {
			s.Status = status
			s.Metadata[session.MetaProcessPID], s.Metadata[session.MetaProcessHost] = pid, env.host
		})
	}
	// Session ids are drawn before the processes start, so each works in its own workspace.
	leftover := withProcess(session.StatusNeedsInput, 0)
	running := withProcess(session.StatusRunning, 0)
	stranger := withProcess(session.StatusArchived, 0)
	gone := withProcess(session.StatusFailed, 0)

	leftAgent := agent(t, filepath.Join(agentproc.WorkspaceRoot(env.DataDir, leftover.ID), "repo"))
	runningAgent := agent(t, agentproc.WorkspaceRoot(env.DataDir, running.ID))
	unrelated := agent(t, t.TempDir()) // its pid recorded, but it works elsewhere: a reused pid
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for id, pid := range map[int64]int{leftover.ID: leftAgent.Process.Pid, running.ID: runningAgent.Process.Pid,
		stranger.ID: unrelated.Process.Pid, gone.ID: dead.Process.Pid} {
		if _, err := env.Store.UpdateSession(context.Background(), id, func(u *session.Session) error {
			u.Metadata[session.MetaProcessPID] = pid
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}

	out, err := env.Ops.CleanupProcesses(asCaller("key-one"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Terminated, []int{leftAgent.Process.Pid}) || len(out.Failed) != 0 {
		t.Errorf("terminated %v, failed %v; want only the leftover agent %d", out.Terminated, out.Failed, leftAgent.Process.Pid)
	}
	slices.Sort(out.AlreadyDead)
	want := []int{unrelated.Process.Pid, dead.Process.Pid}
	slices.Sort(want)
	if !slices.Equal(out.AlreadyDead, want) {
		t.Errorf("already dead %v; want the exited pid and the reused one %v", out.AlreadyDead, want)
	}
	if agentproc.Alive(leftAgent.Process.Pid) {
		t.Error("the leftover agent is still alive")
	}
	if !agentproc.Alive(runningAgent.Process.Pid) || !agentproc.Alive(unrelated.Process.Pid) {
		t.Error("a running session's agent or an unrelated process was signalled")
	}
	if s, _ := env.Ops.Get(context.Background(), leftover.ID); session.BagInt(s.Metadata, session.MetaProcessPID) != 0 {
		t.Error("the leftover session still records the ended process")
	}
	if s, _ := env.Ops.Get(context.Background(), running.ID); session.BagInt(s.Metadata, session.MetaProcessPID) != runningAgent.Process.Pid {
		t.Error("the running session's process record was touched")
	}

	var limited *orchestrator.RateLimitedError
	if _, err := env.Ops.CleanupProcesses(asCaller("key-one")); !errors.As(err, &limited) || limited.RetryAfter <= 0 {
		t.Errorf("a second cleanup by the same key within 30s: %v; want RateLimitedError", err)
	}
	if _, err := env.Ops.CleanupProcesses(asCaller("key-two")); err != nil {
		t.Errorf("another key was throttled by the first: %v", err)
	}
	env.redis.Stop()
	if _, err := env.Ops.CleanupProcesses(asCaller("key-three")); !errors.Is(err, orchestrator.ErrRateLimitUnavailable) {
		t.Errorf("with Redis stopped: %v; want ErrRateLimitUnavailable", err)
	}
}

func TestRetrySessionsResumesFailedSessionsAndSaysWhyOthersWereNot(t *testing.T) {
	env := newHealthEnv(t, orchestratortest.Options{})
	prompt := "do the thing"
	failed := env.session(t, func(s *session.Session) { s.Status, s.Prompt = session.StatusFailed, &prompt })
	idle := env.session(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })

	out, err := env.Ops.RetrySessions(asCaller("retry-key"), []int64{failed.ID, idle.ID, 1 << 50})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Retried, []int64{failed.ID}) {
		t.Errorf("retried %v; want %d", out.Retried, failed.ID)
	}
	if len(out.Skipped) != 1 || out.Skipped[0].SessionID != idle.ID || !strings.Contains(out.Skipped[0].Reason, "needs_input") {
		t.Errorf("skipped %+v; want the needs_input session, saying so", out.Skipped)
	}
	if len(out.Failed) != 1 || out.Failed[0].Reason != "Session not found" {
		t.Errorf("failed %+v; want the unknown id as not found", out.Failed)
	}
	s, err := env.Ops.Get(context.Background(), failed.ID)
	if err != nil || s.Status != session.StatusRunning || s.JobID == nil {
		t.Fatalf("retried session = %+v, %v; want running its queued recovery turn", s, err)
	}
	if queued, err := env.Queue.TaskQueued(context.Background(), tasks.LaneAgents, *s.JobID); err != nil || !queued {
		t.Errorf("the retried turn %s is not queued: %v", *s.JobID, err)
	}

	recent := env.session(t, func(s *session.Session) { s.Status, s.Prompt = session.StatusFailed, &prompt })
	byDefault, err := env.Ops.RetrySessions(asCaller("another-key"), nil)
	if err != nil || !slices.Equal(byDefault.Retried, []int64{recent.ID}) {
		t.Errorf("retry with no ids = %+v, %v; want the recent failure %d", byDefault, err, recent.ID)
	}
}

func TestRecentFailuresLeaveFrozenCategoriesOut(t *testing.T) {
	env := newHealthEnv(t, orchestratortest.Options{})
	since := time.Now().Add(-time.Second)
	frozen, err := env.Ops.CreateCategory(context.Background(), graphtest.Unique(t, "frozen"), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	plain := env.session(t, func(s *session.Session) { s.Status = session.StatusFailed })
	cold := env.session(t, func(s *session.Session) { s.Status, s.CategoryID = session.StatusFailed, &frozen.ID })
	other := graphtest.Session(t, env.Store, func(s *session.Session) { s.Status = session.StatusFailed })
	recent, err := env.Store.RecentFailedSessions(context.Background(), since, env.fleet, 1000)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(recent))
	for i, s := range recent {
		ids[i] = s.ID
	}
	if !slices.Equal(ids, []int64{plain.ID}) {
		t.Errorf("recent failures %v; want %d, neither the frozen category's %d nor %d outside the scope", ids, plain.ID, cold.ID, other.ID)
	}
}

func TestArchiveOldArchivesOnlySessionsUntouchedForTheDays(t *testing.T) {
	env := newHealthEnv(t, orchestratortest.Options{})
	long := time.Now().Add(-400 * 24 * time.Hour)
	old := env.session(t, func(s *session.Session) { s.Status, s.CreatedAt, s.UpdatedAt = session.StatusNeedsInput, long, long })
	oldRunning := env.session(t, func(s *session.Session) { s.Status, s.CreatedAt, s.UpdatedAt = session.StatusRunning, long, long })
	fresh := env.session(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })
	outside := graphtest.Session(t, env.Store, func(s *session.Session) { s.Status, s.CreatedAt, s.UpdatedAt = session.StatusNeedsInput, long, long })

	out, err := env.Ops.ArchiveOld(asCaller("archive-key"), 365)
	if err != nil {
		t.Fatal(err)
	}
	if out.Days != 365 || !slices.Equal(out.Archived, []int64{old.ID, oldRunning.ID}) || len(out.Failed) != 0 {
		t.Errorf("archive_old = %+v; want %d and %d (running) archived, not the fresh %d nor %d outside the scope", out, old.ID, oldRunning.ID, fresh.ID, outside.ID)
	}
	if s, _ := env.Ops.Get(context.Background(), old.ID); s.Status != session.StatusArchived {
		t.Errorf("the old session is %s", s.Status)
	}
	for days, want := range map[int]int{0: 7, -3: 1, 1: 1, 400: 365} {
		if got := orchestrator.ClampArchiveDays(days); got != want {
			t.Errorf("ClampArchiveDays(%d) = %d; want %d", days, got, want)
		}
	}
}

func TestQueueRecoveryModeClampsItsWindowExtendsOnReentryAndExits(t *testing.T) {
	env := newHealthEnv(t, orchestratortest.Options{})
	ctx := context.Background()
	for _, tc := range []struct{ minutes, want int }{{0, 60}, {1, 5}, {1000, 240}, {30, 30}} {
		r, err := env.Ops.EnterQueueRecovery(ctx, "", tc.minutes, "tester")
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Until(r.Mode.ExpiresAt); got < time.Duration(tc.want)*time.Minute-5*time.Second || got > time.Duration(tc.want)*time.Minute {
			t.Errorf("ttl_minutes %d: expires in %s; want %d minutes", tc.minutes, got, tc.want)
		}
	}
	first, _ := env.Ops.EnterQueueRecovery(ctx, "runaway pollers", 10, "ops")
	again, err := env.Ops.EnterQueueRecovery(ctx, "", 20, "")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Mode.EnteredAt.Equal(first.Mode.EnteredAt) || again.Mode.Reason != "runaway pollers" || again.Mode.EnteredBy != "ops" {
		t.Errorf("re-entry = %+v; want the first entry's time, reason and author kept", again.Mode)
	}
	if !slices.Equal(again.Paused, tasks.HaltedLanes()) || slices.Contains(again.Paused, tasks.LaneAgents) {
		t.Errorf("paused %v; want every lane but agents", again.Paused)
	}
	off, wasOn, err := env.Ops.ExitQueueRecovery(ctx)
	if err != nil || !wasOn || off.Active() || len(off.Paused) != 0 {
		t.Fatalf("exit = %+v, was on %v, %v; want off with nothing paused", off, wasOn, err)
	}
	if _, wasOn, err := env.Ops.ExitQueueRecovery(ctx); err != nil || wasOn {
		t.Errorf("a second exit: was on %v, %v; want an idempotent no-op", wasOn, err)
	}
	env.redis.Stop()
	if _, err := env.Ops.EnterQueueRecovery(ctx, "", 0, ""); !errors.Is(err, orchestrator.ErrQueueRecoveryUnavailable) {
		t.Errorf("enter with Redis stopped: %v; want ErrQueueRecoveryUnavailable", err)
	}
}
