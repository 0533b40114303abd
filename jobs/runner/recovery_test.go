package runner_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// A worker killed mid-run (no chance to hand anything back) leaves the session running and its
// agent alive in its own process group; the sweep ends the agent, parks the session and
// continues it with the recovery nudge on another worker.
func TestKilledWorkerLeavesASessionTheSweepRecovers(t *testing.T) {
	e := private(t, envOptions{db: childDB, noWork: true})
	child, out := startChild(t, e, "")

	id := e.create(t, map[string]any{"prompt": "SLEEP 30"})
	pid := e.waitSpawned(t, id)
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	if gone(pid) {
		t.Fatal("the agent runs in its own process group and outlives its worker")
	}
	if s := e.get(t, id); s.Status != session.StatusRunning {
		t.Fatalf("nothing handed the session back: %s", s.Status)
	}

	// The sweep finds it once the dead worker's run lease has lapsed.
	e.waitFor(t, id, "the sweep to recover it", 15*time.Second, func(*session.Session) bool {
		if err := e.runner.HandleSweep(context.Background(), nil); err != nil {
			t.Fatalf("sweep: %v\nchild worker said:\n%s", err, out)
		}
		return e.get(t, id).Metadata[session.MetaRecoveredOrphanAt] != nil
	})
	waitGone(t, pid)

	e.startWorker(t, 0)
	s := e.waitFor(t, id, "the recovery turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	second := turns(e.transcript(t, id))[1]
	if !strings.HasPrefix(second["prompt"].(string), "SYSTEM_RECOVERY") || second["reason"] != "recovery" || second["resume"] != true {
		t.Fatalf("the recovery turn resumes the conversation with the nudge: %v", second)
	}
	if _, parked := s.Metadata[session.MetaPausedBy]; parked {
		t.Fatalf("a recovered session that finished its turn is no longer parked: %v", s.Metadata)
	}
}

// startChild runs the out-of-process worker (see childWorker) for e, on redisURL ("" is its own
// database of the shared test Redis); it is killed when the test ends.
func startChild(t *testing.T, e *env, redisURL string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "ZIMMER_RUNNER_CHILD=1", "ZIMMER_RUNNER_CHILD_CATALOG="+catDir,
		"ZIMMER_RUNNER_CHILD_AGENT="+fakeAgent, "ZIMMER_RUNNER_CHILD_DATA="+e.dataDir, "ZIMMER_RUNNER_CHILD_URL="+e.srv.URL,
		"ZIMMER_RUNNER_CHILD_REDIS="+redisURL, "FAKEAGENT_LOG="+e.log)
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	return child, &out
}

// The fault test: a turn running with two messages queued behind it, Redis stopped for 20 s
// and the worker killed -9 in the middle. The turn ends during the outage and hands the first
// message off (its job cannot be queued); the worker dies. Once Redis and a worker are back,
// every queued message is delivered exactly once and nothing is left running without a runner.
func TestARedisOutageAndAKilledWorkerLoseNoQueuedMessage(t *testing.T) {
	const outage = 20 * time.Second
	redis := graphtest.StartRedis(t, "fault-test-redis-pw")
	e := private(t, envOptions{redisURL: redis.URL, noWork: true})
	child, out := startChild(t, e, redis.URL)
	id := e.create(t, map[string]any{"prompt": "SLEEP 2"})
	e.waitSpawned(t, id)
	for _, m := range []string{"first queued message", "second queued message"} {
		if status, body := e.do(t, "POST", "/api/v1/sessions/"+itoa(id)+"/enqueued_messages", map[string]any{"content": m}); status != 201 {
			t.Fatalf("enqueue: %d %v", status, body)
		}
	}
	redis.Stop()
	down := time.Now()
	e.waitFor(t, id, "the first message handed off during the outage", 15*time.Second, func(s *session.Session) bool {
		_, pending := s.Metadata[session.MetaPendingDispatch]
		return pending
	})
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	time.Sleep(time.Until(down.Add(outage)))
	redis.Start()

	e.startWorker(t, 0)
	e.waitFor(t, id, "both messages delivered", 30*time.Second, func(s *session.Session) bool {
		if err := e.runner.HandleSweep(context.Background(), nil); err != nil {
			t.Logf("sweep: %v", err)
		}
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) >= 3
	})
	time.Sleep(time.Second) // anything delivered twice would start by now
	got := map[string]int{}
	for _, turn := range turns(e.transcript(t, id)) {
		for _, m := range []string{"first queued message", "second queued message"} {
			if strings.Contains(turn["prompt"].(string), m) {
				got[m]++
			}
		}
	}
	if len(turns(e.transcript(t, id))) != 3 || got["first queued message"] != 1 || got["second queued message"] != 1 {
		t.Fatalf("each queued message delivered exactly once: %v in %d turns\nchild worker said:\n%s", got, len(turns(e.transcript(t, id))), out)
	}
	if s := e.get(t, id); s.Status == session.StatusRunning || s.RunningJobID != nil {
		t.Fatalf("left %s under job %v", s.Status, s.RunningJobID)
	}
	if n, _ := e.store.CountPendingMessages(context.Background(), id); n != 0 {
		t.Fatalf("%d messages still queued", n)
	}
}

// A worker that is stopped terminates its turns and parks their sessions for recovery; the next
// worker's sweep continues them.
func TestShutdownHandsRunningSessionsBackForRecovery(t *testing.T) {
	e := private(t, envOptions{})
	id := e.create(t, map[string]any{"prompt": "SLEEP 30"})
	pid := e.waitSpawned(t, id)
	start := time.Now()
	e.stop()
	if time.Since(start) > 8*time.Second {
		t.Fatalf("shutdown took %s", time.Since(start))
	}
	waitGone(t, pid)
	s := e.get(t, id)
	if s.Status != session.StatusNeedsInput || s.Metadata[session.MetaPausedBy] != orchestrator.PausedByRecovery || s.RunningJobID != nil {
		t.Fatalf("handed back for recovery: %s %v", s.Status, s.Metadata)
	}

	e.startWorker(t, 0)
	if err := e.runner.HandleSweep(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s = e.waitFor(t, id, "the recovery turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	if _, parked := s.Metadata[session.MetaPausedBy]; parked {
		t.Fatalf("continued: %v", s.Metadata)
	}
}

// A session whose worker stopped before its agent received the prompt gets that prompt on
// recovery, not the nudge; and recovery gives up after MaxRecoveryAttempts.
func TestRecoveryDeliversATurnTheAgentNeverReceived(t *testing.T) {
	e := private(t, envOptions{noWork: true})
	ctx := context.Background()
	id := e.create(t, map[string]any{"prompt": "the original task"})
	task := tasks.RunSessionTaskID(id, "start")
	if _, err := e.ops.ClaimRun(ctx, id, task, "the original task"); err != nil {
		t.Fatal(err)
	}
	if err := e.ops.HandBack(ctx, id, task, "the original task"); err != nil {
		t.Fatal(err)
	}
	e.startWorker(t, 0) // its start task is still queued: it stands down, the session is parked
	if err := e.runner.HandleSweep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	e.waitFor(t, id, "the recovered turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 1
	})
	first := turns(e.transcript(t, id))[0]
	if !strings.HasPrefix(first["prompt"].(string), "the original task") || first["resume"] != false || first["reason"] != "recovery" {
		t.Fatalf("the undelivered prompt, in a fresh conversation: %v", first)
	}

	// Parked again with the budget spent: abandoned, left for a human.
	_, err := e.store.UpdateSession(ctx, id, func(u *session.Session) error {
		u.Metadata[session.MetaPausedBy], u.Metadata[session.MetaRecoveryContinueAttempts] = orchestrator.PausedByRecovery, orchestrator.MaxRecoveryAttempts
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.runner.HandleSweep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := e.get(t, id)
	if s.Status != session.StatusNeedsInput || s.Metadata[session.MetaPausedBy] != nil || s.Metadata[session.MetaRecoveryContinueAbandoned] == nil {
		t.Fatalf("abandoned: %s %v", s.Status, s.Metadata)
	}
}
