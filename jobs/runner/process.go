package runner

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zimmerhq/zimmer/agentproc"
	"github.com/zimmerhq/zimmer/config"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// process is a running agent CLI: the leader of its own process group (pgid = pid), so a
// signal to -pid reaches every MCP server and tool it started.
type process struct {
	cmd    *exec.Cmd
	pid    int
	done   chan struct{} // closed when the leader has been reaped
	state  *os.ProcessState
	stderr string // the stderr log's path
}

// spawn starts the turn's CLI: its stdout streams into the transcript, its stderr into a log
// beside the clone, stdin is /dev/null, and the environment is the worker's minus Zimmer's
// own secrets, plus what the runtime and its MCP config ask for.
func (t *turn) spawn(ctx context.Context, prompt string) error {
	out, err := openStream(t.r.transcriptPath(t.sess.ID), t.sess.ID, t.r.log)
	if err != nil {
		return err
	}
	t.out = out
	if err := out.writeJSON(t.marker(prompt)); err != nil {
		return err
	}
	bin := t.r.bin(t.rt)
	spec := spawnSpec{prompt: prompt, workDir: t.ws.workDir, model: t.sess.Model(),
		runtimeID: derefString(t.sess.RuntimeSessionID), resume: t.resume(),
		configPath: session.BagString(t.sess.Metadata, session.MetaConfigPath), autoCompact: t.sess.AutoCompactWindow,
		hooks: t.hooks, settingsPath: t.settings}
	proc, err := startProcess(bin, t.rt.argv(spec), t.ws.workDir, t.r.agentEnv(mergeEnv(t.runtimeEnv(), t.rt.env(spec),
		map[string]string{"ZIMMER_SESSION_ID": strconv.FormatInt(t.sess.ID, 10)}, t.r.elicitationEnv(t.sess.ID))),
		filepath.Join(t.ws.root, t.rt.key+"_stderr.log"), out)
	if err != nil {
		out.close()
		return t.rt.spawnFailure(bin, err)
	}
	t.proc = proc
	if err := t.r.ops.RecordSpawn(ctx, t.sess.ID, t.taskID, proc.pid, t.r.opt.Host); err != nil {
		proc.terminate(t.r.opt.TermGrace)
		t.settle(ctx)
		return err
	}
	t.r.ops.AppendTimeline(ctx, t.sess.ID, session.LogInfo, fmt.Sprintf("Agent turn started: %s (pid %d, %s)", t.rt.label, proc.pid, t.reason))
	return nil
}

func startProcess(bin string, argv []string, dir string, env []string, stderrPath string, out *stream) (*process, error) {
	stderr, err := os.OpenFile(stderrPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the agent's stderr log: %w", err)
	}
	defer stderr.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd := exec.Command(bin, argv...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, pw, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close() // the child holds its own copy; EOF comes when every holder is gone
	out.start(pr)
	p := &process{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{}), stderr: stderrPath}
	go func() {
		_ = cmd.Wait() // the exit is read from ProcessState; a non-zero exit is not an error here
		p.state = cmd.ProcessState
		close(p.done)
	}()
	return p, nil
}

// terminate ends the turn: SIGTERM to the whole group, SIGKILL after grace.
func (p *process) terminate(grace time.Duration) {
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.done
	}
}

// reap kills whatever the leader left running in its group (an MCP server that ignored the
// leader's exit) once the leader is gone.
func (p *process) reap() {
	<-p.done
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// stderrTail is the end of the agent's stderr log, for failure_detail; only the end is read.
func (p *process) stderrTail() string {
	f, err := os.Open(p.stderr)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 2000
	if info, err := f.Stat(); err == nil && info.Size() > max {
		_, _ = f.Seek(-max, io.SeekEnd)
	}
	data, _ := io.ReadAll(io.LimitReader(f, max))
	return strings.TrimSpace(string(data))
}

func exitStatus(p *process) any {
	if code := p.state.ExitCode(); code >= 0 {
		return code
	}
	return p.state.String() // killed by a signal: "signal: terminated"
}

// elicitationEnv tells the agent's MCP servers (which inherit the CLI's environment) where to
// ask the human a question over HTTP and poll for the answer (GET <poll URL>/<request id>),
// and which session's turn waits on it.
func (r *Runner) elicitationEnv(sessionID int64) map[string]string {
	base := strings.TrimRight(r.opt.PublicURL, "/") + "/api/v1/elicitations"
	return map[string]string{
		"ELICITATION_REQUEST_URL":          base,
		"ELICITATION_POLL_URL":             base,
		"ELICITATION_PREFER_HTTP_FALLBACK": "true",
		"ELICITATION_TTL_MS":               strconv.FormatInt(session.DefaultElicitationTTL.Milliseconds(), 10),
		"ELICITATION_SESSION_ID":           strconv.FormatInt(sessionID, 10),
	}
}

// agentEnv is the worker's environment without Zimmer's own variables (its keys, passwords and
// store addresses: config.Reserved), with extra set on top.
func (r *Runner) agentEnv(extra map[string]string) []string {
	var env []string
	for _, kv := range r.opt.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, overridden := extra[k]; overridden || config.Reserved(k) {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// agentGetenv is one variable of the agent's environment ("" when unset; the last setting wins,
// as it does for the process): where its CLI keeps its own files (HOME, CLAUDE_CONFIG_DIR,
// CODEX_HOME).
func (r *Runner) agentGetenv(key string) string {
	v := ""
	for _, kv := range r.agentEnv(nil) {
		if k, val, _ := strings.Cut(kv, "="); k == key {
			v = val
		}
	}
	return v
}

// spawnFailure is a CLI that could not be started, named with the variable that points at it.
func (rt runtime) spawnFailure(bin string, err error) orchestrator.Failure {
	msg := fmt.Sprintf("the %s CLI %q could not be started: %v (check %s)", rt.label, bin, err, rt.binEnv)
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		msg = fmt.Sprintf("the %s CLI %q does not exist on this worker: install it or set %s to its path", rt.label, bin, rt.binEnv)
	}
	return orchestrator.Failure{Reason: orchestrator.FailureSpawn, Message: msg,
		Details: map[string]any{"spawn_error": err.Error(), "binary": bin}}
}

// awaitPrevious waits for the previous turn's process to be gone before this one starts (an
// interrupt's new turn must not resume the conversation while the old process still writes to
// it), killing it when it outlives the terminating run's own grace period.
func (t *turn) awaitPrevious() {
	pid := session.BagInt(t.sess.Metadata, session.MetaProcessPID)
	if pid == 0 || session.BagString(t.sess.Metadata, session.MetaProcessHost) != t.r.opt.Host {
		return
	}
	deadline := time.Now().Add(t.r.opt.TermGrace + time.Second)
	for agentproc.Alive(pid) && time.Now().Before(deadline) {
		time.Sleep(25 * time.Millisecond)
	}
	if agentproc.Alive(pid) && agentproc.OwnedBy(pid, t.ws.root) {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// killLeftover ends an orphaned session's process on this host (the worker that ran it died and
// the agent, in its own process group, outlived it).
func (r *Runner) killLeftover(m map[string]any, root string) {
	pid := session.BagInt(m, session.MetaProcessPID)
	if pid == 0 || session.BagString(m, session.MetaProcessHost) != r.opt.Host || !agentproc.Alive(pid) || !agentproc.OwnedBy(pid, root) {
		return
	}
	agentproc.Terminate(pid, r.opt.TermGrace)
}

// newUUID is a random (version 4) UUID: the conversation id Zimmer mints for Claude and Pi.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
