// WebUsageTotals: a session's token ledger summed — the session page's costs so far — in one
// row, however long the ledger.
// Params: $session_id. Returns: one row {requests, input, output, cache_read, cache_creation, models}.
OPTIONAL MATCH (u:TokenUsage {session_id: $session_id})
RETURN count(u) AS requests, sum(u.input_tokens) AS input, sum(u.output_tokens) AS output,
       sum(u.cache_read_tokens) AS cache_read, sum(u.cache_creation_tokens) AS cache_creation,
       [m IN collect(DISTINCT u.model) WHERE m <> ''] AS models
