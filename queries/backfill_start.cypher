// BackfillStart: start a sweep of every transcript into the token ledger, or join the one in
// flight: the sweep's node is locked first, so two callers at once start one sweep.
// Params: $key (the data directory swept), $at (datetime), $files_total, $trigger (who asked). Returns: one row {run (map), joined}.
MERGE (b:TokenUsageBackfill {key: $key})
SET b._lock = true
REMOVE b._lock
WITH b, b.started_at IS NOT NULL AND b.finished_at IS NULL AS joined
SET b += CASE WHEN joined THEN {} ELSE {run: coalesce(b.run, 0) + 1, started_at: $at, finished_at: null, cursor: 0,
  files_total: $files_total, files_done: 0, session_rows: 0, last_error: null, trigger: $trigger, lease_until: null} END
RETURN b {.*} AS run, joined
