// BackfillProgress: record what a slice of sweep $run did: its cursor (the last session id
// swept), files and ledger rows added, an error, and whether the sweep is finished (which
// also releases the lease). Params: $run, $cursor, $files, $rows, $error (null: none),
// $finished (bool), $at (datetime). Returns: one row {run (map)}, none when $run is not the
// current sweep.
MATCH (b:TokenUsageBackfill {key: $key})
WHERE b.run = $run
SET b.cursor = $cursor, b.files_done = b.files_done + $files, b.session_rows = b.session_rows + $rows,
    b.last_error = coalesce($error, b.last_error),
    b.finished_at = CASE WHEN $finished THEN $at ELSE null END,
    b.lease_until = CASE WHEN $finished THEN null ELSE b.lease_until END
RETURN b {.*} AS run
