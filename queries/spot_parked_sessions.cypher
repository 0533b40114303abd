// SpotParkedSessions: sessions pause_into_spot_queue parked (metadata.spot_queued_at, copied to
// the indexed spot_queued_at property) that are asleep in waiting with no job owning them,
// longest parked first, for the spot scheduler to resume. $scope narrows it to sessions whose
// custom_metadata JSON contains it ('' for all).
// Params: $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session)
WHERE s.spot_queued_at IS NOT NULL AND s.status = 'waiting' AND s.running_job_id IS NULL
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.spot_queued_at, s.id
LIMIT $limit
