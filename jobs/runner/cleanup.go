package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// After an archive's undo window the clone goes: removed when everything in it exists upstream,
// moved aside to $ZIMMER_DATA_DIR/preserved/<id>-<unix time> when it holds uncommitted changes,
// untracked files, stashes or commits no remote has — or when Zimmer cannot tell, because the
// repository configures programs git would run to look (filters, an fsmonitor, diff drivers).
// The repository is the agent's, so it is untrusted: git is only ever asked to read, with hooks
// and the fsmonitor off, in the scrubbed agent environment.

// gitReadTimeout bounds each git command the cleanup runs.
const gitReadTimeout = 30 * time.Second

// HandleCleanupClone is the session:cleanup_clone task.
func (r *Runner) HandleCleanupClone(ctx context.Context, t *asynq.Task) error {
	var p tasks.CleanupClone
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: bad session:cleanup_clone payload: %v", asynq.SkipRetry, err)
	}
	due, err := r.ops.CloneCleanupDue(ctx, p)
	if err != nil || !due {
		return err
	}
	root := r.workspaceRoot(p.SessionID)
	if _, err := os.Stat(root); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	clone := filepath.Join(root, "repo")
	why := r.unpushedWork(ctx, clone)
	if why == "" {
		if err := os.RemoveAll(root); err != nil {
			return fmt.Errorf("remove the clone of archived session %d: %w", p.SessionID, err)
		}
		r.ops.AppendTimeline(ctx, p.SessionID, session.LogInfo, "Clone removed: the session stayed archived and everything in it exists upstream")
		return nil
	}
	kept := filepath.Join(r.opt.DataDir, "preserved", strconv.FormatInt(p.SessionID, 10)+"-"+strconv.FormatInt(time.Now().Unix(), 10))
	if err := os.MkdirAll(filepath.Dir(kept), 0o700); err != nil {
		return fmt.Errorf("preserve the clone of archived session %d: %w", p.SessionID, err)
	}
	if err := os.Rename(root, kept); err != nil {
		return fmt.Errorf("preserve the clone of archived session %d: %w", p.SessionID, err)
	}
	r.ops.AppendTimeline(ctx, p.SessionID, session.LogWarning, fmt.Sprintf("Clone moved aside to %s: it holds %s", kept, why))
	return nil
}

// unpushedWork says what in the clone exists nowhere else, or "" when nothing does (no clone
// at all included).
func (r *Runner) unpushedWork(ctx context.Context, clone string) string {
	if _, err := os.Stat(filepath.Join(clone, ".git")); err != nil {
		return ""
	}
	// Reading the repository's own config runs nothing; anything in it that would make git
	// run a program while it looks is reason enough to keep the clone.
	if out, err := r.git(ctx, clone, "config", "--file", filepath.Join(clone, ".git", "config"), "--name-only", "--get-regexp", `^(filter|diff|merge)\.|^core\.fsmonitor$`); err == nil && len(bytes.TrimSpace(out)) > 0 {
		return "a git configuration that runs programs (" + string(bytes.Fields(out)[0]) + "), so Zimmer did not inspect it"
	}
	checks := []struct {
		what string
		args []string
	}{
		{"uncommitted changes or untracked files", []string{"status", "--porcelain", "--untracked-files=all", "--ignore-submodules=none"}},
		{"commits no remote has", []string{"log", "--branches", "--not", "--remotes", "--format=%H", "-n", "1"}},
		{"stashed changes", []string{"stash", "list", "-n", "1"}},
	}
	for _, c := range checks {
		out, err := r.git(ctx, clone, c.args...)
		if err != nil {
			return "a repository git could not read (" + c.what + " unknown)"
		}
		if len(bytes.TrimSpace(out)) > 0 {
			return c.what
		}
	}
	return ""
}

// git runs one read-only git command in the clone with hooks and the fsmonitor off, in the
// scrubbed agent environment, and returns its stdout.
func (r *Runner) git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitReadTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"-c", "core.untrackedCache=false", "-C", dir}, args...)...)
	cmd.Env = append(r.agentEnv(nil), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	return cmd.Output()
}
