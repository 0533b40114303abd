// BackfillStatus: the current (or last) sweep of transcripts into the token ledger.
// Params: $key (the data directory swept), none. Returns: one row {run (map)}, none before the first sweep.
MATCH (b:TokenUsageBackfill {key: $key})
RETURN b {.*} AS run
