// StaleWaitingStarts: sessions still waiting for a first run that may never come — a prompt and a
// start job recorded, the runtime never started, not parked, unchanged since $before. The sweep
// then asks the queue whether that job is still alive. $scope as for StaleRunningSessions.
// Params: $before (datetime), $scope, $limit. Returns: one row {s} per session, oldest change first.
MATCH (s:Session {status: 'waiting'})
WHERE s.updated_at < $before AND s.job_id IS NOT NULL AND s.prompt IS NOT NULL
  AND s.paused_by IS NULL AND NOT s.metadata CONTAINS '"runtime_started":true'
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
