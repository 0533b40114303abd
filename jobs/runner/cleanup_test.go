package runner_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// An archived session's clone goes once the undo window has passed: removed when everything in
// it exists upstream, moved aside when it holds work that exists nowhere else, kept when the
// archive was undone within the window.
func TestAnArchivedSessionsCloneIsRemovedOrPreservedAfterTheUndoWindow(t *testing.T) {
	e := shared(t)
	git := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", dir}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cases := []struct {
		name      string
		change    func(t *testing.T, clone string)
		restore   bool
		preserved string // what the timeline says is kept; "" means removed
	}{
		{name: "a clean clone is removed"},
		{name: "an uncommitted file is preserved", preserved: "uncommitted changes or untracked files",
			change: func(t *testing.T, clone string) {
				os.WriteFile(filepath.Join(clone, "notes.txt"), []byte("wip"), 0o600)
			}},
		{name: "a commit no remote has is preserved", preserved: "commits no remote has",
			change: func(t *testing.T, clone string) { git(t, clone, "commit", "-q", "--allow-empty", "-m", "local only") }},
		{name: "a repository that configures programs is preserved uninspected", preserved: "runs programs",
			change: func(t *testing.T, clone string) {
				git(t, clone, "config", "filter.x.clean", "touch /tmp/should-never-run")
			}},
		{name: "an archive undone within the window keeps the clone", restore: true},
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				id := e.create(t, map[string]any{"prompt": "work", "agent_root": "parent"})
				e.waitStatus(t, id, session.StatusNeedsInput)
				root := filepath.Join(e.dataDir, "workspaces", itoa(id))
				if c.change != nil {
					c.change(t, filepath.Join(root, "repo"))
				}
				if st, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/archive", nil); st != http.StatusOK {
					t.Fatalf("archive: %d %v", st, out)
				}
				if c.restore {
					if st, out := e.do(t, http.MethodPost, "/api/v1/sessions/"+itoa(id)+"/unarchive", nil); st != http.StatusOK {
						t.Fatalf("unarchive: %d %v", st, out)
					}
					time.Sleep(tasks.CloneCleanupDelay + 5*time.Second)
					if _, err := os.Stat(filepath.Join(root, "repo", ".git")); err != nil {
						t.Fatalf("a restored session keeps its clone: %v", err)
					}
					return
				}
				deadline := time.Now().Add(tasks.CloneCleanupDelay + 30*time.Second)
				for _, err := os.Stat(root); err == nil; _, err = os.Stat(root) {
					if time.Now().After(deadline) {
						t.Fatal("the clone is still in place after the undo window")
					}
					time.Sleep(200 * time.Millisecond)
				}
				want := c.preserved
				if want == "" {
					want = "Clone removed"
				}
				var said string
				for !strings.Contains(said, want) && time.Now().Before(deadline) {
					time.Sleep(100 * time.Millisecond)
					logs, err := e.ops.Timeline(t.Context(), id)
					if err != nil {
						t.Fatal(err)
					}
					said = ""
					for _, l := range logs {
						said += l.Content + "\n"
					}
				}
				kept, _ := filepath.Glob(filepath.Join(e.dataDir, "preserved", itoa(id)+"-*"))
				last := said
				if c.preserved == "" {
					if len(kept) != 0 || !strings.Contains(last, "Clone removed") {
						t.Fatalf("a clean clone is removed, not kept: %v, %q", kept, last)
					}
					return
				}
				if len(kept) != 1 || !strings.Contains(last, c.preserved) {
					t.Fatalf("kept %v; timeline %q, want it to say %q", kept, last, c.preserved)
				}
				if _, err := os.Stat(filepath.Join(kept[0], "repo", ".git")); err != nil {
					t.Fatalf("the preserved clone is whole: %v", err)
				}
			})
		}
	})
	if _, err := os.Stat("/tmp/should-never-run"); err == nil {
		t.Fatal("the cleanup ran a program the repository configured")
	}
}
