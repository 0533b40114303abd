package runner_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// A worker killed mid-run (no chance to hand anything back) leaves the session running and its
// agent alive in its own process group; the sweep ends the agent, parks the session and
// continues it with the recovery nudge on another worker.
func TestKilledWorkerLeavesASessionTheSweepRecovers(t *testing.T) {
	e := private(t, envOptions{db: childDB, noWork: true})
	var out bytes.Buffer
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "ZIMMER_RUNNER_CHILD=1", "ZIMMER_RUNNER_CHILD_CATALOG="+catDir,
		"ZIMMER_RUNNER_CHILD_AGENT="+fakeAgent, "ZIMMER_RUNNER_CHILD_DATA="+e.dataDir, "ZIMMER_RUNNER_CHILD_URL="+e.srv.URL,
		"FAKEAGENT_LOG="+e.log)
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })

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
			t.Fatalf("sweep: %v\nchild worker said:\n%s", err, out.String())
		}
		return e.get(t, id).Metadata["recovered_orphan_at"] != nil
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
	if _, parked := s.Metadata["paused_by"]; parked {
		t.Fatalf("a recovered session that finished its turn is no longer parked: %v", s.Metadata)
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
	if s.Status != session.StatusNeedsInput || s.Metadata["paused_by"] != orchestrator.PausedByRecovery || s.RunningJobID != nil {
		t.Fatalf("handed back for recovery: %s %v", s.Status, s.Metadata)
	}

	e.startWorker(t, 0)
	if err := e.runner.HandleSweep(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s = e.waitFor(t, id, "the recovery turn", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 2
	})
	if _, parked := s.Metadata["paused_by"]; parked {
		t.Fatalf("continued: %v", s.Metadata)
	}
}

// A session whose worker stopped before its agent received the prompt gets that prompt on
// recovery, not the nudge; and recovery gives up after MaxRecoveryAttempts.
func TestRecoveryDeliversATurnTheAgentNeverReceived(t *testing.T) {
	e := private(t, envOptions{noWork: true})
	ctx := context.Background()
	id := e.create(t, map[string]any{"prompt": "the original task"})
	task := jobs.RunSessionTaskID(id, "start")
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
		u.Metadata["paused_by"], u.Metadata["recovery_continue_attempts"] = orchestrator.PausedByRecovery, orchestrator.MaxRecoveryAttempts
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.runner.HandleSweep(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := e.get(t, id)
	if s.Status != session.StatusNeedsInput || s.Metadata["paused_by"] != nil || s.Metadata["recovery_continue_abandoned"] == nil {
		t.Fatalf("abandoned: %s %v", s.Status, s.Metadata)
	}
}
