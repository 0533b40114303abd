// Package runner runs agent sessions on the worker: the session:run task takes a session's
// turn from waiting (or a hand-off) to its end. It prepares a workspace (a git clone of the
// session's repository), writes the runtime's MCP config, builds the prompt, starts the agent
// CLI in its own process group, streams its JSONL to the transcript file, records token usage,
// watches for interrupts, pauses and archives every tick, and classifies the exit: a clean end
// hands the turn to the next queued message or pauses to needs_input; anything else fails the
// session with a failure_reason. It also runs the queue drain and the orphan sweep.
//
// Every state change goes through orchestrator, under the session's lock and checked against
// running_job_id, so a turn that was superseded can never move the session again.
package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// Options configure a Runner; zero values take the defaults noted.
type Options struct {
	DataDir   string            // ZIMMER_DATA_DIR: workspaces/ and transcripts/ live here
	PublicURL string            // ZIMMER_PUBLIC_URL: what the injected MCP entries point at (with the session's own token)
	Bins      map[string]string // runtime → CLI binary (ZIMMER_CLAUDE_BIN, ZIMMER_CODEX_BIN, ZIMMER_PI_BIN)
	Tick      time.Duration     // monitor loop interval (0.5 s)
	LeaseTTL  time.Duration     // the run lease's TTL (15 s); refreshed every third of it
	TermGrace time.Duration     // SIGTERM to SIGKILL of a turn's process group (5 s)
	// SweepEvery and SweepGrace drive the orphan sweep (1 min, 30 s): a running session
	// untouched for SweepGrace whose run is not alive is recovered.
	SweepEvery, SweepGrace time.Duration
	// SpotEvery is how often parked spot sessions are resumed into free agent slots (30 s).
	SpotEvery time.Duration
	// SweepScope limits the sweep to sessions whose custom_metadata mentions it, for graphs
	// shared by independent queues (the tests). Empty sweeps every session.
	SweepScope string
	Lookup     func(string) (string, bool) // ${VAR} values for catalog MCP entries (os.LookupEnv)
	// SecretsFile (ZIMMER_SECRETS_FILE, KEY=value, 0600) is asked before Lookup; read at every
	// prepare, so a changed secret reaches the next turn.
	SecretsFile string
	// MCPVariables are the only ${VAR}s catalog MCP entries may read (ZIMMER_MCP_VARIABLES);
	// empty allows any but Zimmer's own.
	MCPVariables []string
	Environ      func() []string // the agent's base environment (os.Environ)
	Host         string          // this machine (os.Hostname): processes are only signalled here
	Runs         *metrics.Runs   // nil records nothing
	// HeartbeatEvery is the heartbeat sweep's tick (30 s).
	HeartbeatEvery time.Duration
	// RetentionEvery is the retention tick (10 min); WorkspaceBudget, when above zero, is the
	// bytes the workspaces may take before clean clones of resting sessions are evicted
	// (ZIMMER_WORKSPACE_BUDGET_GB).
	RetentionEvery  time.Duration
	WorkspaceBudget int64
	// RetryBase is the first back-off after an overloaded or failing model API (30 s; each retry
	// waits four times longer) and the margin added to a rate limit's announced reset.
	RetryBase time.Duration
	// ElicitationsEvery is how often overdue elicitations are expired and reported (5 min).
	ElicitationsEvery time.Duration
	// MCPRetryBase is the MCP connection ladder's first wait (30 s; then 60 s and 120 s).
	MCPRetryBase time.Duration
	// OAuthRefreshEvery is the MCP OAuth refresh job's cadence (5 min); each pass renews the
	// tokens that expire within two cadences.
	OAuthRefreshEvery time.Duration
	// BacklogEvery is the unattended backlog job's cadence; zero does not schedule it (the
	// tests, whose graph holds other tests' backlog items).
	BacklogEvery time.Duration
	// Summarizer makes the inference lane's one-shot calls (status summaries, titles); nil asks
	// the session's own agent CLI.
	Summarizer orchestrator.Summarizer
}

// Runner executes session turns. It is safe for concurrent use.
type Runner struct {
	ops   *orchestrator.Service
	queue *tasks.Queue
	log   *slog.Logger
	opt   Options
}

// New builds a runner, filling the defaults.
func New(ops *orchestrator.Service, queue *tasks.Queue, log *slog.Logger, o Options) (*Runner, error) {
	dir, err := filepath.Abs(cmp.Or(o.DataDir, ".zimmer"))
	if err != nil {
		return nil, fmt.Errorf("ZIMMER_DATA_DIR %q: %w", o.DataDir, err)
	}
	o.DataDir = dir
	o.Tick = cmp.Or(o.Tick, 500*time.Millisecond)
	o.LeaseTTL = cmp.Or(o.LeaseTTL, 15*time.Second)
	o.TermGrace = cmp.Or(o.TermGrace, 5*time.Second)
	o.SweepEvery = cmp.Or(o.SweepEvery, time.Minute)
	o.SweepGrace = cmp.Or(o.SweepGrace, 30*time.Second)
	o.RetryBase = cmp.Or(o.RetryBase, 30*time.Second)
	o.RetentionEvery = cmp.Or(o.RetentionEvery, 10*time.Minute)
	o.HeartbeatEvery = cmp.Or(o.HeartbeatEvery, 30*time.Second)
	o.SpotEvery = cmp.Or(o.SpotEvery, 30*time.Second)
	o.ElicitationsEvery = cmp.Or(o.ElicitationsEvery, 5*time.Minute)
	o.MCPRetryBase = cmp.Or(o.MCPRetryBase, 30*time.Second)
	o.OAuthRefreshEvery = cmp.Or(o.OAuthRefreshEvery, 5*time.Minute)
	if o.Lookup == nil {
		o.Lookup = os.LookupEnv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.Bins == nil {
		o.Bins = map[string]string{}
	}
	for _, d := range []string{"workspaces", "transcripts"} {
		// 0700, tightened on an older install too: clones, configs and transcripts hold secrets.
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("prepare %s: %w", d, err)
		}
		if err := os.Chmod(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("prepare %s: %w", d, err)
		}
	}
	r := &Runner{ops: ops, queue: queue, log: log, opt: o}
	if r.opt.Summarizer == nil {
		r.opt.Summarizer = cliSummarizer{r}
	}
	return r, nil
}

// Register wires the runner's tasks into a worker: agent turns on the agents lane; queue
// drains, transitions' effects, clone cleanups and heartbeats on default; the orphan sweep,
// retention, the spot scheduler, elicitation expiry, the transcript archive and the backlog job
// on maintenance; status summaries and titles on inference; the agent CLIs' status probe on pollers.
func (r *Runner) Register(w *jobs.Worker) {
	w.Handle(tasks.LaneAgents, tasks.TypeRunSession, r.HandleRun)
	w.Handle(tasks.LaneDefault, tasks.TypeDrainMessages, r.HandleDrain)
	w.Handle(tasks.LaneDefault, tasks.TypeSessionEffects, r.HandleEffects)
	w.Handle(tasks.LaneDefault, tasks.TypeCleanupClone, r.HandleCleanupClone)
	w.Handle(tasks.LaneInference, tasks.TypeStatusSummary, r.HandleStatusSummary)
	w.Handle(tasks.LaneInference, tasks.TypeInferTitle, r.HandleInferTitle)
	w.Every(tasks.LaneMaintenance, tasks.TypeSweepOrphans, r.opt.SweepEvery, r.HandleSweep)
	w.Every(tasks.LaneMaintenance, tasks.TypeRetention, r.opt.RetentionEvery, r.HandleRetention)
	w.Every(tasks.LaneDefault, tasks.TypeHeartbeat, r.opt.HeartbeatEvery, r.HandleHeartbeat)
	w.Every(tasks.LaneMaintenance, tasks.TypeResumeSpot, r.opt.SpotEvery, r.HandleResumeSpot)
	w.Every(tasks.LaneMaintenance, tasks.TypeExpireElicitations, r.opt.ElicitationsEvery, r.HandleExpireElicitations)
	w.Every(tasks.LaneMaintenance, tasks.TypeTranscriptArchive, orchestrator.ArchiveEvery, r.HandleTranscriptArchive)
	w.Every(tasks.LaneMaintenance, tasks.TypeRefreshMCPOAuth, r.opt.OAuthRefreshEvery, r.HandleRefreshOAuth)
	w.Every(tasks.LanePollers, tasks.TypeRefreshCLIs, tasks.CLIsRefreshEvery, r.HandleRefreshCLIs)
	if r.opt.BacklogEvery > 0 {
		w.Every(tasks.LaneMaintenance, tasks.TypeBacklog, r.opt.BacklogEvery, r.HandleBacklog)
	}
}

// Outcomes of a run (the metrics' outcome label).
const (
	outcomeStoodDown  = "stood_down"  // another job owns the session; nothing ran
	outcomeHeld       = "held"        // the spot gate held a first start; a retry task asks again
	outcomeFailed     = "failed"      // the session failed with a failure_reason
	outcomeSuperseded = "superseded"  // interrupted, paused, archived or taken over mid-turn
	outcomeHandedBack = "handed_back" // the worker is stopping; parked for recovery
	outcomeError      = "error"       // the store could not be told; the sweep recovers it
)

// HandleRun is the session:run task: one agent turn. It never returns an error for the
// agent's own failures (those fail the session); Asynq never retries an agent task.
func (r *Runner) HandleRun(ctx context.Context, t *asynq.Task) error {
	var p tasks.RunSession
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: bad session:run payload: %v", asynq.SkipRetry, err)
	}
	taskID, _ := asynq.GetTaskID(ctx)
	// Asynq schedules by whole seconds, so a delayed turn can arrive up to a second early;
	// a retry's wait is a promise (the ladder's back-off), so the rest of it is slept here.
	if early := time.Until(p.At); early > 0 && early <= time.Second {
		select {
		case <-time.After(early):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The turn ends when the worker stops or the turn's deadline passes, not when a Redis
	// outage costs Asynq its lease on the task.
	ctx, cancel := jobs.Lifetime(ctx)
	defer cancel()
	stop := r.keepLease(taskID)
	defer stop()
	// Store calls outlive a cancelled ctx: the cancellation means "hand the session back",
	// which itself has to be written.
	work := context.WithoutCancel(ctx)
	sess, err := r.ops.ClaimRun(work, p.SessionID, taskID, p.Prompt)
	if errors.Is(err, orchestrator.ErrSpotHeld) {
		r.log.Info("run held by the spot gate; its retry task starts it later", "session_id", p.SessionID, "task_id", taskID, "err", err)
		r.opt.Runs.RunFinished("unknown", outcomeHeld, 0)
		return nil
	}
	if errors.Is(err, orchestrator.ErrNotOwner) {
		r.log.Info("run stands down: the session is not its to run", "session_id", p.SessionID, "task_id", taskID)
		r.opt.Runs.RunFinished("unknown", outcomeStoodDown, 0)
		return nil
	}
	if err != nil {
		return err
	}
	// The turn keeps the catalog it started with, whatever a reload swaps in meanwhile.
	tn := &turn{r: r, cat: r.ops.Catalog(), taskID: taskID, sess: sess, base: p.Prompt, started: time.Now(),
		reason: cmp.Or(session.BagString(sess.Metadata, session.MetaNextTurnReason), p.Reason)}
	r.opt.Runs.RunStarted(sess.AgentRuntime)
	outcome := tn.run(ctx, work)
	r.opt.Runs.RunFinished(sess.AgentRuntime, outcome, time.Since(tn.started))
	r.log.Info("run ended", "session_id", sess.ID, "task_id", taskID, "outcome", outcome, "duration", time.Since(tn.started))
	return nil
}

// keepLease holds the run's lease until the returned stop is called; the first hold happens
// before keepLease returns, so the orphan sweep never sees a claimed run without one.
func (r *Runner) keepLease(taskID string) (stop func()) {
	hold := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.queue.HoldRunLease(ctx, taskID, r.opt.LeaseTTL); err != nil {
			r.log.Warn("run lease not refreshed; retrying", "task_id", taskID, "err", err)
			return false
		}
		return true
	}
	hold()
	done := make(chan struct{})
	go func() {
		// A refresh that failed (Redis unreachable) is retried soon, so the lease is back as
		// soon as Redis is, before the sweep can take the turn for dead.
		every, retry := r.opt.LeaseTTL/3, max(r.opt.LeaseTTL/15, 50*time.Millisecond)
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if hold() {
					t.Reset(every)
				} else {
					t.Reset(retry)
				}
			}
		}
	}()
	return func() {
		close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := r.queue.ReleaseRunLease(ctx, taskID); err != nil {
			r.log.Warn("run lease not released; it expires on its own", "task_id", taskID, "err", err)
		}
	}
}

// HandleDrain is the session:drain task: deliver the next queued message of an idle session.
func (r *Runner) HandleDrain(ctx context.Context, t *asynq.Task) error {
	var p tasks.DrainMessages
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: bad session:drain payload: %v", asynq.SkipRetry, err)
	}
	delivered, err := r.ops.DrainQueue(ctx, p.SessionID)
	if err != nil {
		return fmt.Errorf("drain session %d: %w", p.SessionID, err)
	}
	r.log.Info("queue drained", "session_id", p.SessionID, "delivered", delivered)
	return nil
}

// HandleRefreshOAuth is the mcp:refresh_oauth task: renew the OAuth tokens that expire before
// the pass after next could.
func (r *Runner) HandleRefreshOAuth(ctx context.Context, _ *asynq.Task) error {
	out, err := r.ops.RefreshOAuthCredentials(ctx, 2*r.opt.OAuthRefreshEvery)
	if err != nil {
		return fmt.Errorf("refresh MCP OAuth tokens: %w", err)
	}
	if out != (orchestrator.OAuthRefreshed{}) {
		r.log.Info("MCP OAuth tokens refreshed", "renewed", out.Renewed, "retired", out.Retired, "failed", out.Failed)
	}
	return nil
}

// HandleEffects is the session:effects task: the after-commit effects of one transition. An
// error retries from the effect that failed.
func (r *Runner) HandleEffects(ctx context.Context, t *asynq.Task) error {
	var p tasks.SessionEffects
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("%w: bad session:effects payload: %v", asynq.SkipRetry, err)
	}
	return r.ops.RunEffects(ctx, p.SessionID, p.Batch)
}
