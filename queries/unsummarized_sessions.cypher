// UnsummarizedSessions: the next sessions with ledger rows, in id order after $after, for the
// migration that summarizes a ledger written before SpendDay summaries existed; none once the
// migration is done (without reading the ledger), and finding none marks it done. It takes the
// migration's lock first, so two processes starting at once summarize one batch at a time.
// Params: $after (session id), $limit, $at (datetime).
// Returns: one row {ids}.
MERGE (m:Migration {name: 'spend_days'})
SET m.at = $at
WITH m
CALL {
  WITH m
  UNWIND CASE WHEN coalesce(m.done, false) THEN [] ELSE [true] END AS todo
  MATCH (u:TokenUsage)
  WHERE u.session_id > $after
  WITH DISTINCT u.session_id AS id
  ORDER BY id
  LIMIT $limit
  RETURN collect(id) AS ids
}
SET m.done = size(ids) = 0
RETURN ids
