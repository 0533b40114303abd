// StalePendingEffects: sessions holding after-commit effects of a committed transition that have
// not all run (pending_effects in metadata), unchanged since $before; the sweep then asks the
// queue whether each batch's task is still alive. $scope as for StaleRunningSessions.
// Params: $before (datetime), $scope, $limit. Returns: one row {s} per session, oldest change first.
MATCH (s:Session)
WHERE s.updated_at < $before
  AND s.metadata CONTAINS '"pending_effects":'
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
