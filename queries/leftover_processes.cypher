// LeftoverProcesses: sessions that are no longer running but still record an agent process on
// $host (process_host, the indexed copy of metadata.process_host, is written only while a pid
// is recorded): the candidates of cleanup_processes. $scope narrows it to sessions whose
// custom_metadata JSON contains it ('' for all).
// Params: $host, $scope, $limit. Returns: one row {s} per session.
MATCH (s:Session {process_host: $host})
WHERE s.status <> 'running' AND ($scope = '' OR s.custom_metadata CONTAINS $scope)
RETURN s
ORDER BY s.id
LIMIT $limit
