package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
)

func actionHealthTool() *toolDef {
	return &toolDef{name: "action_health", group: groupHealth, write: true, full: variant{
		description: "Health maintenance: cleanup_processes, retry_sessions and archive_old (a 30-second cooldown shared " +
			"with the REST endpoint, per API key), enter/exit_queue_recovery_mode (halt every queue but agents; never " +
			"throttled), and preview/discard/reschedule_queued_jobs (discard and reschedule need the expected_count the " +
			"preview reported; the agents queue is refused), backfill_token_usage (sweep every transcript on disk into the " +
			"token ledger; asking again joins the sweep in flight; never throttled), cli_refresh (queue a probe of the agent " +
			"CLIs' versions and login state) and cli_clear_cache (forget the cached status and queue that probe); neither " +
			"is throttled.",
		schema: newSchema(fields{
			"action":         healthVerbs.enum(),
			"session_ids":    list("retry_sessions: the sessions (empty: recent failures).", number("")),
			"days":           number("archive_old: age in days (default 7).").min(1).max(365),
			"reason":         str("enter_queue_recovery_mode: why."),
			"ttl_minutes":    number("enter_queue_recovery_mode: auto-exit after (default 60).").min(5).max(240),
			"job_class":      str("Queued-job maintenance: only this job class."),
			"queue_name":     str("Queued-job maintenance: only this queue."),
			"expected_count": integer("discard/reschedule: the count preview_queued_jobs reported.").min(0),
			"delay_minutes":  integer("reschedule_queued_jobs: run them this many minutes from now (default 0, at most 7 days).").min(0).max(orchestrator.MaxRescheduleMinutes),
		}, "action"),
		run: runActionHealth,
	}}
}

var healthVerbs = verbs[func(context.Context, *call) (string, error)]{
	{orchestrator.ActionCleanupProcesses, healthCleanup}, {orchestrator.ActionRetrySessions, healthRetry},
	{orchestrator.ActionArchiveOld, healthArchiveOld}, {"cli_refresh", healthCLIRefresh}, {"cli_clear_cache", healthCLIClear},
	{orchestrator.ActionEnterQueueRecovery, healthEnterRecovery}, {orchestrator.ActionExitQueueRecovery, healthExitRecovery},
	{"backfill_token_usage", healthBackfill}, {orchestrator.ActionPreviewQueuedJobs, healthPreviewJobs},
	{orchestrator.ActionDiscardQueuedJobs, healthDiscardJobs}, {orchestrator.ActionRescheduleQueuedJobs, healthRescheduleJobs},
}

func runActionHealth(ctx context.Context, c *call) (string, error) {
	run, err := healthVerbs.lookup(c.args.text("action"))
	if err != nil {
		return "", err
	}
	return run(ctx, c)
}

// throttled renders a cooldown-guarded action's result, or the refusal a model reads.
func throttled(heading string, result any, err error) (string, error) {
	var limited *orchestrator.RateLimitedError
	switch {
	case errors.As(err, &limited):
		return "", fail("Rate limited: please wait 30 seconds between health actions.")
	case errors.Is(err, orchestrator.ErrRateLimitUnavailable):
		return "", fail("Rate limiting unavailable: the cache is unavailable, so the 30-second cooldown cannot be enforced. " +
			"Refusing to run health maintenance actions.")
	case err != nil:
		return "", err
	}
	var b doc
	b.heading(2, heading)
	b.fence("json", prettyJSON(result))
	return b.String(), nil
}

func healthCleanup(ctx context.Context, c *call) (string, error) {
	out, err := c.h.ops.CleanupProcesses(ctx)
	return throttled("Processes Cleaned Up", out, err)
}

func healthRetry(ctx context.Context, c *call) (string, error) {
	var ids []int64
	if raw, ok := c.args["session_ids"].([]any); ok {
		for _, v := range raw {
			id, ok := intValue(v)
			if !ok || id <= 0 {
				return "", fail("Invalid arguments: session_ids must hold positive integer session ids")
			}
			ids = append(ids, id)
		}
	}
	out, err := c.h.ops.RetrySessions(ctx, ids)
	return throttled("Sessions Retried", out, err)
}

func healthArchiveOld(ctx context.Context, c *call) (string, error) {
	days, _ := c.args.integer("days")
	out, err := c.h.ops.ArchiveOld(ctx, int(min(max(days, -1), 1000)))
	return throttled("Old Sessions Archived", out, err)
}

func healthCLIRefresh(ctx context.Context, c *call) (string, error) {
	return cliJobQueued(c.h.ops.RefreshCLIs(ctx), "CLI Refresh Queued")
}

func healthCLIClear(ctx context.Context, c *call) (string, error) {
	return cliJobQueued(c.h.ops.ClearCLICache(ctx), "CLI Cache Clear Queued")
}

func cliJobQueued(err error, heading string) (string, error) {
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, heading)
	b.line("A worker probes each agent CLI's version and login state; get_system_health with include_cli_status reports them.")
	return b.String(), nil
}

func (c *call) recoveryActor() string {
	if c.scope.SessionID > 0 {
		return fmt.Sprintf("session #%d via the MCP API", c.scope.SessionID)
	}
	return "the MCP API"
}

func healthEnterRecovery(ctx context.Context, c *call) (string, error) {
	ttl, _ := c.args.integer("ttl_minutes")
	r, err := c.h.ops.EnterQueueRecovery(ctx, c.args.text("reason"), int(min(max(ttl, 1), 100000)), c.recoveryActor())
	if err != nil {
		return "", recoveryRefusal(err)
	}
	var b doc
	b.heading(2, "Queue Recovery Mode ON")
	b.line(recoveryLine(r.View(c.h.ops.Now())))
	b.line("Exit with action_health exit_queue_recovery_mode; it also lifts itself at the auto-exit time.")
	b.fence("json", prettyJSON(r.View(c.h.ops.Now())))
	return b.String(), nil
}

func healthExitRecovery(ctx context.Context, c *call) (string, error) {
	r, wasOn, err := c.h.ops.ExitQueueRecovery(ctx)
	if err != nil {
		return "", recoveryRefusal(err)
	}
	var b doc
	b.heading(2, "Queue Recovery Mode OFF")
	if wasOn {
		b.line("The halted queues are running again; what piled up drains now.")
	} else {
		b.line("Queue recovery mode was not on; nothing changed.")
	}
	b.fence("json", prettyJSON(r.View(c.h.ops.Now())))
	return b.String(), nil
}

func recoveryRefusal(err error) error {
	if errors.Is(err, orchestrator.ErrQueueRecoveryUnavailable) {
		return fail("Queue recovery mode unavailable: the job queue's Redis did not answer, so the halt could not be recorded or changed.")
	}
	return err
}

func jobScope(c *call) tasks.JobScope {
	return tasks.JobScope{Type: c.args.text("job_class"), Lane: c.args.text("queue_name")}
}

func healthPreviewJobs(_ context.Context, c *call) (string, error) {
	m, err := c.h.ops.PreviewQueuedJobs(jobScope(c))
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Queued Jobs Preview")
	b.field("Matched", m.Matched)
	b.field("By job class", m.Breakdown())
	if m.OverCap {
		b.field("Over the cap", fmt.Sprintf("more than %d; narrow the scope before acting", m.MaxPerCall))
	}
	b.line(fmt.Sprintf("To act on exactly these, pass expected_count %d to discard_queued_jobs or reschedule_queued_jobs.", m.Matched))
	b.fence("json", prettyJSON(m))
	return b.String(), nil
}

func expectedCount(c *call) (int, error) {
	n, ok := c.args.integer("expected_count")
	if !ok {
		return 0, required("expected_count", c.args.text("action"), " Pass the count preview_queued_jobs reported.")
	}
	return int(min(n, 1<<31-1)), nil
}

func healthDiscardJobs(ctx context.Context, c *call) (string, error) {
	expected, err := expectedCount(c)
	if err != nil {
		return "", err
	}
	r, err := c.h.ops.DiscardQueuedJobs(ctx, jobScope(c), expected)
	if err != nil {
		return "", err
	}
	return jobsReceipt("Queued Jobs Discarded", "Not recoverable: the discarded jobs will never run.", r), nil
}

func healthRescheduleJobs(ctx context.Context, c *call) (string, error) {
	expected, err := expectedCount(c)
	if err != nil {
		return "", err
	}
	delay, _ := c.args.integer("delay_minutes")
	r, at, err := c.h.ops.RescheduleQueuedJobs(ctx, jobScope(c), expected, int(delay))
	if err != nil {
		return "", err
	}
	return jobsReceipt("Queued Jobs Rescheduled", "Recoverable: they run at "+timestamp(at)+".", r), nil
}

func jobsReceipt(heading, note string, r tasks.JobResult) string {
	var b doc
	b.heading(2, heading)
	b.field("Affected", r.Affected)
	b.field("By job class", r.Breakdown())
	b.field("Skipped (changed state meanwhile)", len(r.Skipped))
	b.line(note)
	b.fence("json", prettyJSON(r))
	return b.String()
}
