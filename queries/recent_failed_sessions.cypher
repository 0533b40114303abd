// RecentFailedSessions: failed sessions changed since $since outside frozen categories, newest
// change first: what retry_sessions retries when no sessions are named. $scope narrows it to
// sessions whose custom_metadata JSON contains it ('' for all).
// Params: $since (datetime), $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session {status: 'failed'})
WHERE s.updated_at >= $since AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
OPTIONAL MATCH (c:Category {id: s.category_id})
WITH s, c
WHERE c IS NULL OR NOT coalesce(c.is_frozen, false)
RETURN s
ORDER BY s.updated_at DESC, s.id DESC
LIMIT $limit
