// SpotQueue: the ranked spot queue — sessions waiting in it, parked (spot_queued_at) or held at
// their first start by the spot gate (spot_hold_reason) — highest precedence first, then oldest,
// then lowest id; and the queue's length. $scope as for SpotRunningPools.
// Params: $scope, $skip, $limit. Returns: one row {total, sessions: list of nodes}.
MATCH (s:Session {status: 'waiting'})
WHERE (s.spot_queued_at IS NOT NULL OR s.spot_hold_reason IS NOT NULL)
  AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
WITH s ORDER BY s.precedence DESC, s.created_at, s.id
WITH count(s) AS total, collect(s) AS all
RETURN total, all[$skip..$skip + $limit] AS sessions
