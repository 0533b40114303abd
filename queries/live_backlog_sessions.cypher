// LiveBacklogSessions: how many sessions the unattended backlog job started are still live,
// neither archived nor failed. Params: $started_by (the job's started_by label).
// Returns: one row {live}.
MATCH (b:BacklogItem {status: 'started', started_by: $started_by})
MATCH (s:Session {id: b.session_id})
WHERE NOT s.status IN ['archived', 'failed']
RETURN count(s) AS live
