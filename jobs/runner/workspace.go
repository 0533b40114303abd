package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zimmerhq/zimmer/agentproc"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// workspace is where a session's turns run: root holds the clone and the agent's stderr log,
// workDir is the clone's subdirectory the agent starts in.
type workspace struct {
	root, clone, workDir string
}

// cloneTimeout bounds one git clone; a transfer slower than cloneLowSpeed bytes a second for
// cloneLowSpeedSecs is given up on long before it; cloneWaitDelay is how long a killed clone's
// pipes may stay open (a helper that inherited them) before Wait returns anyway.
const (
	cloneTimeout      = 10 * time.Minute
	cloneLowSpeed     = 1000
	cloneLowSpeedSecs = 60
	cloneWaitDelay    = 5 * time.Second
	cloneOutputMax    = 16 << 10
)

// writtenFile sits beside the clone, outside the tree the agent can change: it names the MCP
// entries and the skill folders Zimmer wrote for the runtime, so the next prepare can take
// exactly those out and leave the repository's own alone.
const writtenFile = "mcp-written.json"

type writtenRecord struct {
	Runtime string   `json:"runtime"`
	WorkDir string   `json:"work_dir"`
	Written []string `json:"written"` // MCP entries
	Skills  []string `json:"skills,omitempty"`
}

// written is what the last prepare wrote for runtime in this working directory; nothing when it
// wrote another runtime's files, or none at all.
func (ws workspace) written(runtime string) writtenRecord {
	data, err := os.ReadFile(filepath.Join(ws.root, writtenFile))
	if err != nil {
		return writtenRecord{}
	}
	var rec writtenRecord
	if json.Unmarshal(data, &rec) != nil || rec.Runtime != runtime || rec.WorkDir != ws.workDir {
		return writtenRecord{}
	}
	return rec
}

func (ws workspace) recordWritten(rec writtenRecord) error {
	rec.WorkDir = ws.workDir
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("record what Zimmer wrote into the clone: %w", err)
	}
	if err := os.WriteFile(filepath.Join(ws.root, writtenFile), data, 0o600); err != nil {
		return fmt.Errorf("record what Zimmer wrote into the clone: %w", err)
	}
	return nil
}

func (r *Runner) workspaceRoot(sessionID int64) string {
	return agentproc.WorkspaceRoot(r.opt.DataDir, sessionID)
}

// workspace returns the session's workspace, cloning git_root at branch when the session has
// no clone yet (or it is gone, or a restart from scratch cleared it). fresh reports a new clone.
func (r *Runner) workspace(ctx context.Context, sess *session.Session) (ws workspace, fresh bool, err error) {
	ws.root = r.workspaceRoot(sess.ID)
	ws.clone = filepath.Join(ws.root, "repo")
	_, statErr := os.Stat(filepath.Join(ws.clone, ".git"))
	fresh = statErr != nil || session.BagString(sess.Metadata, session.MetaClonePath) == ""
	if fresh {
		if err := r.clone(ctx, sess, ws); err != nil {
			return ws, true, err
		}
	}
	ws.workDir, err = workDir(ws.clone, derefString(sess.Subdirectory))
	if err != nil {
		return ws, fresh, orchestrator.Failure{Reason: orchestrator.FailureCloneValidation,
			Message: fmt.Sprintf("the working directory %q in the clone of %s: %v", derefString(sess.Subdirectory),
				session.RedactCredentials(sess.GitRoot), err)}
	}
	return ws, fresh, nil
}

// workDir is the clone's subdirectory the agent starts in, resolved: a subdirectory that is (or
// passes through) a link leading out of the clone is refused, so a repository cannot point the
// agent, and the config carrying the fleet's key, at another session's workspace.
func workDir(clone, sub string) (string, error) {
	realClone, err := filepath.EvalSymlinks(clone)
	if err != nil {
		return "", err
	}
	// Joined onto "/" first so ".." can never climb out of the clone.
	dir, err := filepath.EvalSymlinks(filepath.Join(realClone, filepath.Clean("/"+sub)))
	if err != nil {
		return "", errors.New("does not exist")
	}
	rel, err := filepath.Rel(realClone, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("is a link that leads out of the clone; Zimmer only runs agents inside their workspace")
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", errors.New("is not a directory")
	}
	return filepath.Join(clone, rel), nil
}

func (r *Runner) clone(ctx context.Context, sess *session.Session, ws workspace) error {
	if err := os.RemoveAll(ws.clone); err != nil {
		return fmt.Errorf("clear the old clone: %w", err)
	}
	if err := os.MkdirAll(ws.root, 0o700); err != nil {
		return fmt.Errorf("make the workspace: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cloneTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git",
		"-c", "http.lowSpeedLimit="+strconv.Itoa(cloneLowSpeed), "-c", "http.lowSpeedTime="+strconv.Itoa(cloneLowSpeedSecs),
		"-c", "credential.helper=", "-c", "core.askPass=",
		"clone", "--quiet", "--branch", sess.Branch, "--single-branch", "--", sess.GitRoot, ws.clone)
	// Never prompt: no terminal, no askpass program, ssh in batch mode.
	cmd.Env = append(r.agentEnv(nil), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never",
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	// Its own process group, killed whole on cancel or timeout: git's remote helpers and ssh
	// would otherwise outlive it holding the pipes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = cloneWaitDelay
	out := &capped{max: cloneOutputMax}
	cmd.Stdout, cmd.Stderr = out, out
	err := cmd.Run()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(out.String())
	switch {
	case errors.Is(err, exec.ErrNotFound):
		msg = "git is not installed on this worker"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("it took longer than %s", cloneTimeout)
	}
	return orchestrator.Failure{Reason: orchestrator.FailureGitClone,
		Message: session.RedactCredentials(fmt.Sprintf("git clone of %s (branch %s) failed: %s", sess.GitRoot, sess.Branch, firstLines(msg, 5))),
		Details: map[string]any{session.MetaExitStatus: cmd.ProcessState.String()}}
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// exclude keeps what Zimmer wrote into the clone (the MCP config carries the session's token)
// out of anything the agent commits: listed in the clone's .git/info/exclude and, when the
// repository tracks a file of that name, marked skip-worktree so `git commit -a` leaves the
// rewritten copy alone. what names it in the exclude file and in errors.
func (r *Runner) exclude(ctx context.Context, clone, path, what string) error {
	rel, err := filepath.Rel(clone, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("the %s %s is outside the clone", what, path)
	}
	rel = filepath.ToSlash(rel)
	info := filepath.Join(clone, ".git", "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		return fmt.Errorf("exclude the %s from git: %w", what, err)
	}
	f, err := os.OpenFile(filepath.Join(info, "exclude"), os.O_RDWR|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("exclude the %s from git: %w", what, err)
	}
	defer f.Close()
	existing, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return fmt.Errorf("exclude the %s from git: %w", what, err)
	}
	if line := "/" + rel; !slices.Contains(strings.Split(string(existing), "\n"), line) {
		if _, err := fmt.Fprintf(f, "\n# the %s, written by Zimmer\n%s\n", what, line); err != nil {
			return fmt.Errorf("exclude the %s from git: %w", what, err)
		}
	}
	git := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", clone}, args...)...)
		cmd.Env = r.agentEnv(nil)
		return cmd.Run()
	}
	if git("ls-files", "--error-unmatch", "--", rel) != nil {
		return nil // not tracked: the exclude is enough
	}
	if err := git("update-index", "--skip-worktree", "--", rel); err != nil {
		return fmt.Errorf("keep the tracked %s out of commits: %w", what, err)
	}
	return nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
