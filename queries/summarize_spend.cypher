// SummarizeSpend: re-sum the ledger rows of the given sessions on the given spans of days into
// their SpendDay summaries, one per session, day, model and agent root. The cost reports read
// these, not the ledger: a session's requests of a day fold into a few summaries, so a report
// over a hierarchy or the fleet reads thousands of them rather than millions of rows.
// A summary's volumes are packed in one list, n = [calls, input, output, cache_read,
// cache_creation, cache_creation_5m, cache_creation_1h, web_search, web_fetch], because a
// report reads every summary in its scope and each property read is paid per summary.
// Summaries are rebuilt from the ledger, never incremented, so a repeated or retried run leaves
// the same result. Each session's lock (the SET) is taken before its ledger is read: two
// writers of one session summarize one after the other, the second over what the first
// committed. A deleted session's summaries stay, unattached: its spend happened. Days are UTC
// days, as the reports' windows are.
// Params: $session_ids (list), $spans (list of [from, to) date pairs), $at (datetime).
// Returns: one row {written}.
UNWIND $session_ids AS id
OPTIONAL MATCH (s:Session {id: id})
SET s.ledger_summed_at = $at
WITH id, s
CALL {
  WITH id
  UNWIND $spans AS span
  MATCH (old:SpendDay {session_id: id})
  WHERE span[0] <= old.day < span[1]
  DETACH DELETE old
  RETURN count(*) AS deleted
}
CALL {
  WITH id, s
  UNWIND $spans AS span
  MATCH (u:TokenUsage {session_id: id})
  USING INDEX u:TokenUsage(session_id, called_at)
  WHERE datetime({date: span[0], timezone: 'Z'}) <= u.called_at < datetime({date: span[1], timezone: 'Z'})
  WITH id, s, date(u.called_at) AS day, u.agent_root AS agent_root, u.model AS model, count(*) AS calls,
       sum(u.input_tokens) AS input, sum(u.output_tokens) AS output, sum(u.cache_read_tokens) AS cache_read,
       sum(u.cache_creation_tokens) AS cache_creation, sum(u.cache_creation_5m_tokens) AS cache_5m,
       sum(u.cache_creation_1h_tokens) AS cache_1h, sum(u.web_search_requests) AS web_search,
       sum(u.web_fetch_requests) AS web_fetch
  CREATE (d:SpendDay {session_id: id, day: day, agent_root: agent_root, model: model,
                      n: [calls, input, output, cache_read, cache_creation, cache_5m, cache_1h, web_search, web_fetch]})
  FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [true] END | CREATE (s)-[:SPENT]->(d))
  RETURN count(d) AS written
}
RETURN sum(written) AS written
