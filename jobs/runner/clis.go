package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// cliProbeTimeout bounds each probe: a CLI that hangs (waiting on a network login check) is
// reported, not waited on.
const cliProbeTimeout = 15 * time.Second

// HandleRefreshCLIs probes every runtime's CLI — its --version and its own login check — and
// stores one status record per runtime. Only the exit of the login check is kept, never its
// output, which may name the account or hold a token.
func (r *Runner) HandleRefreshCLIs(ctx context.Context, _ *asynq.Task) error {
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(runtimes)) {
		if err := r.queue.SaveCLIStatus(ctx, r.probeCLI(ctx, runtimes[key])); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (r *Runner) probeCLI(ctx context.Context, rt runtime) tasks.CLIStatus {
	bin := r.bin(rt)
	now := time.Now().UTC()
	st := tasks.CLIStatus{Runtime: rt.key, Binary: bin, CheckedAt: &now}
	if _, err := exec.LookPath(bin); err != nil {
		st.Error = fmt.Sprintf("%s is not installed (%s not found)", rt.label, bin)
		return st
	}
	st.Installed = true
	out, err := r.runProbe(ctx, bin, "--version")
	if err != nil {
		st.Error = fmt.Sprintf("%s --version failed: %v", rt.label, err)
		return st
	}
	st.Version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	if rt.authCheck != nil {
		_, err := r.runProbe(ctx, bin, rt.authCheck...)
		var exit *exec.ExitError
		switch {
		case err == nil || errors.As(err, &exit):
			ok := err == nil
			st.Authenticated = &ok
		default:
			st.Error = fmt.Sprintf("%s login check failed: %v", rt.label, err)
		}
	}
	return st
}

// runProbe runs one probe in the agents' environment (the CLI reads its login from there),
// bounded by cliProbeTimeout.
func (r *Runner) runProbe(ctx context.Context, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, cliProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = r.agentEnv(nil)
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("no answer within %s", cliProbeTimeout)
	}
	return out, err
}
