// BackfillClaim: lease the sweep in flight to one slice until $until, unless another slice
// holds an unexpired lease. Params: $at, $until (datetime). Returns: one row {run (map)}, none
// when there is no sweep in flight or it is leased.
MATCH (b:TokenUsageBackfill {key: $key})
WHERE b.started_at IS NOT NULL AND b.finished_at IS NULL AND (b.lease_until IS NULL OR b.lease_until < $at)
SET b.lease_until = $until
RETURN b {.*} AS run
