// HeartbeatsDue: sessions with the heartbeat on whose interval has passed since their last beat
// (or that never beat), oldest beat first; the heartbeat sweep re-checks each under its lock.
// $scope as for StaleRunningSessions.
// Params: $now (datetime), $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session)
WHERE s.heartbeat_enabled = true
  AND (s.heartbeat_last_beat_at IS NULL
       OR s.heartbeat_last_beat_at + duration({seconds: s.heartbeat_interval_seconds}) <= $now)
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.heartbeat_last_beat_at, s.id
LIMIT $limit
