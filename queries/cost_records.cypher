// CostRecords: one page of ledger rows in a window, newest first, with how many match.
// Filters: $session_id (0: any), $agent_root ("": any), $model ("": any).
// Params: $from, $to (datetime, to exclusive), $session_id, $agent_root, $model, $skip, $limit.
// Returns: one row {total, rows (list of maps)}.
MATCH (u:TokenUsage)
WHERE $from <= u.called_at < $to
  AND ($session_id = 0 OR u.session_id = $session_id)
  AND ($agent_root = '' OR u.agent_root = $agent_root)
  AND ($model = '' OR u.model = $model)
WITH u ORDER BY u.called_at DESC, u.request_id
WITH collect(u) AS matched
RETURN size(matched) AS total, [u IN matched[$skip..$skip + $limit] | u {.*}] AS rows
