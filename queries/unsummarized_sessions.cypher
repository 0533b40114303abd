// UnsummarizedSessions: the next sessions with ledger rows, in id order after $after, for the
// migration that summarizes a ledger written before SpendDay summaries existed; none once the
// migration is done, and finding none marks it done. The ledger is read first, in index order,
// so a batch stops at its last session instead of reading the rest of the ledger; the
// migration's lock comes after, and two processes starting at once summarize the same batch
// one after the other, which the summaries' rebuild makes harmless.
// Params: $after (session id), $limit, $at (datetime).
// Returns: one row {ids}.
OPTIONAL MATCH (u:TokenUsage)
WHERE u.session_id > $after
WITH DISTINCT u.session_id AS id
ORDER BY id
LIMIT $limit
WITH [x IN collect(id) WHERE x IS NOT NULL] AS found
MERGE (m:Migration {name: 'spend_days'})
WITH m, CASE WHEN coalesce(m.done, false) THEN [] ELSE found END AS ids
SET m.at = $at, m.done = size(ids) = 0
RETURN ids
