// StalePendingDispatches: sessions holding a delivery whose agent job has not claimed it (a
// pending_dispatch in metadata), unchanged since $before; the sweep then asks the queue whether
// that job is still alive. $scope as for StaleRunningSessions.
// Params: $before (datetime), $scope, $limit. Returns: one row {s} per session, oldest change first.
MATCH (s:Session)
WHERE s.status IN ['waiting', 'running'] AND s.updated_at < $before
  AND s.metadata CONTAINS '"pending_dispatch":'
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
