package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/jobs/runner"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// A clone whose transport hangs (here a stand-in ssh that never answers and has a child of its
// own) is killed as a whole process group when the turn is cancelled: nothing it started
// outlives it, and the session gets a clone failure rather than a worker stuck on the pipes.
func TestACancelledCloneTakesItsWholeProcessGroupWithIt(t *testing.T) {
	bin, pids := t.TempDir(), t.TempDir()
	ssh := "#!/bin/sh\n" +
		"echo $$ > " + filepath.Join(pids, "ssh") + "\n" +
		"sleep 300 &\n" +
		"echo $! > " + filepath.Join(pids, "child") + "\n" +
		"wait\n"
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte(ssh), 0o700); err != nil {
		t.Fatal(err)
	}
	environ := func() []string { return []string{"PATH=" + bin + ":" + os.Getenv("PATH")} }
	sess := &session.Session{ID: 1, GitRoot: "ssh://git.invalid/r.git", Branch: "main"}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runner.CloneForTest(ctx, environ, sess, t.TempDir()) }()
	child := waitPID(t, filepath.Join(pids, "child"))
	parent := waitPID(t, filepath.Join(pids, "ssh"))
	cancel()

	select {
	case err := <-done:
		var f orchestrator.Failure
		if !errors.As(err, &f) || f.Reason != orchestrator.FailureGitClone {
			t.Fatalf("a cancelled clone is a clone failure, got %v", err)
		}
	case <-time.After(runner.CloneWaitDelay + 10*time.Second):
		t.Fatal("the cancelled clone never returned")
	}
	waitGone(t, parent) // the stand-in ssh
	waitGone(t, child)  // and what it started
}

// waitPID reads the pid a stand-in process wrote to path, once it has.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s: git never ran the stand-in ssh", path)
	return 0
}
