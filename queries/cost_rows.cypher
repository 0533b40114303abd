// CostRows: the fleet's token ledger over [$from, $to), summed per agent root, model and day.
// The metrics' census reads it for the last 24 hours, which are not whole days, so it reads the
// ledger rather than its daily summaries (SpendDay).
// Params: $from, $to (datetime, to exclusive).
// Returns: rows {agent_root, model, day (date), calls, input_tokens, output_tokens,
// cache_read_tokens, cache_creation_tokens, cache_creation_5m_tokens, cache_creation_1h_tokens,
// web_search_requests, web_fetch_requests}.
MATCH (u:TokenUsage)
WHERE $from <= u.called_at < $to
RETURN u.agent_root AS agent_root, u.model AS model, date(u.called_at) AS day, count(*) AS calls,
       sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens,
       sum(u.cache_read_tokens) AS cache_read_tokens, sum(u.cache_creation_tokens) AS cache_creation_tokens,
       sum(u.cache_creation_5m_tokens) AS cache_creation_5m_tokens, sum(u.cache_creation_1h_tokens) AS cache_creation_1h_tokens,
       sum(u.web_search_requests) AS web_search_requests, sum(u.web_fetch_requests) AS web_fetch_requests
