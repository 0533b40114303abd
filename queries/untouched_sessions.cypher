// UntouchedSessions: sessions not in the trash whose record has not changed since $before,
// longest untouched first: what archive_old archives. $scope narrows it to sessions whose
// custom_metadata JSON contains it ('' for all).
// Params: $before (datetime), $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session)
WHERE s.status IN ['waiting', 'running', 'needs_input', 'failed'] AND s.updated_at < $before
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
