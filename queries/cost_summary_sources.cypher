// CostSummarySources: what the named sessions' cost summaries pack, for rebuilding them: every
// SpendDay row and every InjectedBlock tally of each. A session that is gone has no row. Each
// session's lock is taken before its rows are read: a writer of those rows already holds it
// (from before its change), the summaries' migration takes it here, and either way the rows
// read are the ones that commit with the summary.
// Params: $session_ids (list).
// Returns: rows {id, spend: [[day, model, agent_root, n]], injected: [[day, block, model,
// occurrences, bytes, tokens]]}.
UNWIND $session_ids AS id
MATCH (s:Session {id: id})
SET s._lock = true
REMOVE s._lock
WITH id, s
RETURN id,
       COLLECT {
         MATCH (s)-[:SPENT]->(d:SpendDay)
         RETURN [d.day, d.model, d.agent_root, d.n]
       } AS spend,
       COLLECT {
         MATCH (s)-[:INJECTED]->(f:InjectedBlock)
         RETURN [f.day, f.block, f.model, f.occurrences, f.bytes, f.tokens]
       } AS injected
