// SpotRunningSessions: running sessions of one runtime in the spot class in force (explicit
// scheduling_class, else their genesis's: $spot_geneses lists the kinds deriving spot), not yet
// parked to leave, lowest ranked first (precedence ascending, then newest first): the ones the
// ceiling sweep parks first. $scope as for SpotRunningPools.
// Params: $runtime, $scope, $spot_geneses, $limit. Returns: one row {s} per session.
MATCH (s:Session {status: 'running'})
WHERE s.agent_runtime = $runtime AND s.spot_queued_at IS NULL
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
  AND coalesce(s.scheduling_class, CASE WHEN s.genesis IN $spot_geneses THEN 'spot' ELSE 'priority' END) = 'spot'
RETURN s
ORDER BY s.precedence ASC, s.created_at DESC, s.id DESC
LIMIT $limit
