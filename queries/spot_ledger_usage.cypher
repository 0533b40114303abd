// SpotLedgerUsage: tokens each runtime's sessions spent since two instants, read from the token
// ledger as it stands (called_at is when a row was recorded): input, output and cache writes,
// the kinds a plan's usage limits count in full.
// Params: $five_hour_since, $weekly_since (datetimes; weekly is the earlier).
// Returns: one row {runtime, five_hour, weekly} per runtime with spend in the weekly window.
MATCH (u:TokenUsage)
WHERE u.called_at >= $weekly_since
WITH u, coalesce(u.input_tokens, 0) + coalesce(u.output_tokens, 0) + coalesce(u.cache_creation_tokens, 0) AS tokens
RETURN u.agent_runtime AS runtime,
       sum(CASE WHEN u.called_at >= $five_hour_since THEN tokens ELSE 0 END) AS five_hour,
       sum(tokens) AS weekly
