// FleetSessions: sessions outside the trash and outside frozen categories, most recently
// changed first: what refresh_all walks. $scope narrows it to sessions whose custom_metadata
// JSON contains it ('' for all).
// Params: $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session)
WHERE s.status <> 'archived' AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
OPTIONAL MATCH (c:Category {id: s.category_id})
WITH s, c
WHERE c IS NULL OR NOT coalesce(c.is_frozen, false)
RETURN s
ORDER BY s.updated_at DESC, s.id DESC
LIMIT $limit
