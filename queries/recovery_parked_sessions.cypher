// RecoveryParkedSessions: sessions a recovery path parked (metadata.paused_by = "recovery",
// copied to the indexed paused_by property) that rest in needs_input or waiting, for the sweep
// to continue. $scope narrows it to sessions whose custom_metadata JSON contains it ('' for all).
// Params: $scope, $limit. Returns: one row {s} per session, longest parked first.
MATCH (s:Session {paused_by: 'recovery'})
WHERE s.status IN ['needs_input', 'waiting'] AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
