// UncostedSessions: the next sessions, in id order after $after, with SpendDay rows or
// InjectedBlock tallies, for the migration that packs the cost summaries of sessions recorded
// before summaries existed, in an older format or on CostSummary nodes (repacking a summary
// already current is harmless); none once the migration is done, and finding none marks it
// done. The marker names the format (costSummaryVersion): a new format is a new marker, which
// repacks all. Candidates are read from the two session_id indexes in order, so a batch stops
// at its last session and the last batch does not scan the sessions that never spent. The marker is locked first, so two processes
// starting at once take batches one after the other.
// Params: $after (session id), $limit, $at (datetime).
// Returns: one row {ids}.
MERGE (m:Migration {name: 'cost_summaries_v2'})
SET m.at = $at
WITH m, coalesce(m.done, false) AS done
CALL (done) {
  WITH done WHERE NOT done
  CALL {
    MATCH (d:SpendDay)
    WHERE d.session_id > $after AND d.day IS NOT NULL
    WITH DISTINCT d.session_id AS id
    ORDER BY id
    LIMIT $limit
    RETURN id
    UNION
    MATCH (f:InjectedBlock)
    WHERE f.session_id > $after
    WITH DISTINCT f.session_id AS id
    ORDER BY id
    LIMIT $limit
    RETURN id
  }
  WITH id
  ORDER BY id
  LIMIT $limit
  RETURN collect(id) AS found
}
WITH m, coalesce(found, []) AS ids
SET m.done = size(ids) = 0
RETURN ids
