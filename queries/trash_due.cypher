// TrashDue: archived sessions whose restore window has passed (trash_after before $now), oldest
// first; the retention job purges them. $scope as for StaleRunningSessions.
// Params: $now (datetime), $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session)
WHERE s.status = 'archived' AND s.trash_after < $now
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.trash_after, s.id
LIMIT $limit
