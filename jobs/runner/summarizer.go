package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/transcript"
)

// cliSummarizer is the default summarizer: the session's own agent CLI asked one question in
// print mode, in a scratch directory of its own (no clone, no MCP config, so no server starts
// and no file of the session's is within reach), as a conversation of its own:
//
//	claude -p --output-format stream-json --verbose --model <m> -- <prompt>
//	codex exec --json --sandbox read-only --skip-git-repo-check -m <m> -- <prompt>
//	pi -p --mode json --no-session --model <m> -- <prompt>
//
// The answer is the last thing the assistant said in the CLI's JSON events.
type cliSummarizer struct{ r *Runner }

// withModel appends the model flag (when a model is set) and the prompt after "--", so a prompt
// that starts with a dash is never read as a flag.
func withModel(args []string, flag, model, prompt string) []string {
	if model != "" {
		args = append(args, flag, model)
	}
	return append(args, "--", prompt)
}

// maxOneShotOutput bounds what one answer's output may take in memory.
const maxOneShotOutput = 4 << 20

func (c cliSummarizer) OneShot(ctx context.Context, q orchestrator.OneShot) (string, error) {
	rt, ok := runtimes[q.Runtime]
	if !ok {
		return "", fmt.Errorf("agent runtime %q has no runner", q.Runtime)
	}
	bin := c.r.bin(rt)
	dir, err := os.MkdirTemp("", "zimmer-oneshot-")
	if err != nil {
		return "", fmt.Errorf("make a scratch directory: %w", err)
	}
	defer os.RemoveAll(dir)
	stdout, stderr := &capped{max: maxOneShotOutput}, &capped{max: 64 << 10}
	cmd := exec.CommandContext(ctx, bin, rt.oneShot(q.Prompt, q.Model)...)
	cmd.Dir, cmd.Env = dir, c.r.agentEnv(nil)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // whatever it left in its group
	}
	answer, reported := lastAnswer(stdout.buf.Bytes())
	switch {
	case reported != "":
		return "", fmt.Errorf("the %s CLI reported: %s", rt.label, reported)
	case runErr != nil:
		tail := strings.TrimSpace(stderr.String())
		if r := []rune(tail); len(r) > 500 {
			tail = string(r[len(r)-500:])
		}
		return "", fmt.Errorf("the %s CLI failed (%v): %s", rt.label, runErr, tail)
	}
	return answer, nil
}

// lastAnswer is the last assistant text in a CLI's JSON events, and the last error it reported.
func lastAnswer(out []byte) (answer, reported string) {
	for i, line := range bytes.Split(out, []byte{'\n'}) {
		if !json.Valid(line) {
			continue
		}
		if ev := transcript.Parse(0, i+1, line); ev.Error != "" {
			reported = ev.Error
		}
	}
	for _, e := range transcript.Entries(out) {
		if e.Kind == transcript.KindAssistant && strings.TrimSpace(e.Text) != "" {
			answer = e.Text
		}
	}
	return answer, reported
}

// HandleStatusSummary is the session:status_summary task on the inference lane.
func (r *Runner) HandleStatusSummary(ctx context.Context, t *asynq.Task) error {
	var p tasks.Inference
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: bad status-summary payload: %v", asynq.SkipRetry, err)
	}
	return r.ops.GenerateStatusSummary(ctx, p.SessionID, r.opt.Summarizer)
}

// HandleInferTitle is the session:infer_title task on the inference lane.
func (r *Runner) HandleInferTitle(ctx context.Context, t *asynq.Task) error {
	var p tasks.Inference
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: bad title payload: %v", asynq.SkipRetry, err)
	}
	return r.ops.InferTitle(ctx, p.SessionID, r.opt.Summarizer)
}
