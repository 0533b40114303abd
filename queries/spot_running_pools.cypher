// SpotRunningPools: how many sessions run on each runtime (its account pool), and how many of
// those are already parked to leave at the end of their turn (spot_queued_at set while
// running). $scope narrows it to sessions whose custom_metadata JSON contains it ('' for all).
// Params: $scope. Returns: one row {runtime, running, leaving} per runtime with a running session.
MATCH (s:Session {status: 'running'})
WHERE $scope = '' OR s.custom_metadata CONTAINS $scope
RETURN s.agent_runtime AS runtime, count(s) AS running, count(s.spot_queued_at) AS leaving
