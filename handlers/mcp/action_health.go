package mcp

func actionHealthTool() *toolDef {
	return notYet(&toolDef{name: "action_health", group: groupHealth, write: true, full: variant{
		description: "Health maintenance: cleanup_processes, retry_sessions and archive_old (a 30-second cooldown shared " +
			"with the REST endpoint and dashboard), cli_refresh, cli_clear_cache, enter/exit_queue_recovery_mode, " +
			"backfill_token_usage, and preview/discard/reschedule_queued_jobs (discard and reschedule need the " +
			"expected_count the preview reported; the agents queue is refused).",
		schema: newSchema(fields{
			"action": str("What to do.").enum("cleanup_processes", "retry_sessions", "archive_old", "cli_refresh",
				"cli_clear_cache", "enter_queue_recovery_mode", "exit_queue_recovery_mode", "backfill_token_usage",
				"preview_queued_jobs", "discard_queued_jobs", "reschedule_queued_jobs"),
			"session_ids":    list("retry_sessions: the sessions (empty: recent failures).", number("")),
			"days":           number("archive_old: age in days (default 7).").min(1).max(365),
			"reason":         str("enter_queue_recovery_mode: why."),
			"ttl_minutes":    number("enter_queue_recovery_mode: auto-exit after (default 60).").min(5).max(240),
			"job_class":      str("Queued-job maintenance: only this job class."),
			"queue_name":     str("Queued-job maintenance: only this queue."),
			"expected_count": integer("discard/reschedule: the count preview_queued_jobs reported.").min(0),
		}, "action"),
	}}, needsHealth)
}
