package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// workspace is where a session's turns run: root holds the clone and the agent's stderr log,
// workDir is the clone's subdirectory the agent starts in.
type workspace struct {
	root, clone, workDir string
}

// cloneTimeout bounds one git clone.
const cloneTimeout = 10 * time.Minute

func (r *Runner) workspaceRoot(sessionID int64) string {
	return filepath.Join(r.opt.DataDir, "workspaces", strconv.FormatInt(sessionID, 10))
}

// workspace returns the session's workspace, cloning git_root at branch when the session has
// no clone yet (or it is gone, or a restart from scratch cleared it). fresh reports a new clone.
func (r *Runner) workspace(ctx context.Context, sess *session.Session) (ws workspace, fresh bool, err error) {
	ws.root = r.workspaceRoot(sess.ID)
	ws.clone = filepath.Join(ws.root, "repo")
	_, statErr := os.Stat(filepath.Join(ws.clone, ".git"))
	fresh = statErr != nil || metaString(sess.Metadata, orchestrator.MetaClonePath) == ""
	if fresh {
		if err := clone(ctx, sess, ws); err != nil {
			return ws, true, err
		}
	}
	ws.workDir = ws.clone
	if sub := derefString(sess.Subdirectory); sub != "" {
		// Joined onto "/" first so a subdirectory can never climb out of the clone.
		ws.workDir = filepath.Join(ws.clone, filepath.Clean("/"+sub))
	}
	if info, err := os.Stat(ws.workDir); err != nil || !info.IsDir() {
		return ws, fresh, orchestrator.Failure{Reason: orchestrator.FailureCloneValidation,
			Message: fmt.Sprintf("the working directory %q does not exist in the clone of %s", derefString(sess.Subdirectory), sess.GitRoot)}
	}
	return ws, fresh, nil
}

func clone(ctx context.Context, sess *session.Session, ws workspace) error {
	if err := os.RemoveAll(ws.clone); err != nil {
		return fmt.Errorf("clear the old clone: %w", err)
	}
	if err := os.MkdirAll(ws.root, 0o755); err != nil {
		return fmt.Errorf("make the workspace: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "clone", "--quiet", "--branch", sess.Branch, "--single-branch", "--", sess.GitRoot, ws.clone)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(string(out))
	if errors.Is(err, exec.ErrNotFound) {
		msg = "git is not installed on this worker"
	}
	return orchestrator.Failure{Reason: orchestrator.FailureGitClone,
		Message: fmt.Sprintf("git clone of %s (branch %s) failed: %s", sess.GitRoot, sess.Branch, firstLines(msg, 5)),
		Details: map[string]any{"exit_status": cmd.ProcessState.String()}}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
