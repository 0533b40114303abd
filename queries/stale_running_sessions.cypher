// StaleRunningSessions: sessions that say they are running and whose record has not changed
// since $before; the orphan sweep then asks the queue whether their run is still alive. $scope
// narrows the sweep to sessions whose custom_metadata JSON contains it ('' for every session).
// Params: $before (datetime), $scope, $skip, $limit. Returns: one row {s} per session, oldest
// change first (paged with $skip: healthy long turns are stale too, and must not hide orphans).
MATCH (s:Session {status: 'running'})
WHERE s.updated_at < $before AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.updated_at, s.id
SKIP $skip
LIMIT $limit
