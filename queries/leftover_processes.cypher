// LeftoverProcesses: sessions that are no longer running but still record an agent process on
// $host (process_host, the indexed copy of metadata.process_host, is written only while a pid
// is recorded): the candidates of cleanup_processes.
// Params: $host, $limit. Returns: one row {s} per session.
MATCH (s:Session {process_host: $host})
WHERE s.status <> 'running'
RETURN s
ORDER BY s.id
LIMIT $limit
