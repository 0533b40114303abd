// IdleSessionsWithQueuedMessages: sessions resting in waiting or needs_input with a pending
// queued message, no job owning them, not waiting for a first run (a waiting session's pending
// dispatch; one left on a needs_input session is stale), not paused by anyone (a human, a
// recovery, an MCP retry) and not blocked on an elicitation, unchanged since $before: the sweep
// drains them. $scope as for StaleRunningSessions.
// Params: $before (datetime), $scope, $limit. Returns: one row {s} per session, oldest change first.
MATCH (s:Session)
WHERE s.status IN ['waiting', 'needs_input'] AND s.updated_at < $before
  AND s.running_job_id IS NULL AND s.paused_by IS NULL
  AND (s.status = 'needs_input' OR NOT s.metadata CONTAINS '"pending_dispatch":')
  AND NOT s.metadata CONTAINS '"blocked_on_elicitation":true'
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
  AND EXISTS { (s)-[:HAS_MESSAGE]->(:EnqueuedMessage {status: 'pending'}) }
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
