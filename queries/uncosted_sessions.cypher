// UncostedSessions: the next sessions, in id order after $after, with SpendDay rows or
// InjectedBlock tallies but no cost summary, for the migration that packs the summaries of
// sessions recorded before summaries existed; none once the migration is done, and finding
// none marks it done. The marker is locked first, so two processes starting at once take
// batches one after the other.
// Params: $after (session id), $limit, $at (datetime).
// Returns: one row {ids}.
MERGE (m:Migration {name: 'cost_summaries'})
SET m.at = $at
WITH m, coalesce(m.done, false) AS done
CALL (done) {
  WITH done WHERE NOT done
  MATCH (s:Session)
  WHERE s.id > $after AND NOT EXISTS { (s)-[:COST_SUMMARY]->(:CostSummary) }
    AND (EXISTS { (s)-[:SPENT]->(:SpendDay) } OR EXISTS { (s)-[:INJECTED]->(:InjectedBlock) })
  WITH s.id AS id
  ORDER BY id
  LIMIT $limit
  RETURN collect(id) AS found
}
WITH m, coalesce(found, []) AS ids
SET m.done = size(ids) = 0
RETURN ids
