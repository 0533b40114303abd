// ListOutcomeAnalyses: current outcome analyses, newest first, filtered (a null filter matches
// all). Params: $from, $to (datetimes), $agent_root, $agent_runtime, $model, $outcome, $limit.
// Returns: rows {a}.
MATCH (a:OutcomeAnalysis)
WHERE a.superseded_at IS NULL
  AND ($from IS NULL OR a.created_at >= $from)
  AND ($to IS NULL OR a.created_at < $to)
  AND ($agent_root IS NULL OR a.agent_root = $agent_root)
  AND ($agent_runtime IS NULL OR a.agent_runtime = $agent_runtime)
  AND ($model IS NULL OR a.model = $model)
  AND ($outcome IS NULL OR a.root_outcome = $outcome)
RETURN a
ORDER BY a.id DESC
LIMIT $limit
