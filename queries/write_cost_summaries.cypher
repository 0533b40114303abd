// WriteCostSummaries: set the sessions' packed cost summaries, creating the summary node on a
// session's first.
// Params: $summaries (list of maps: id, packed (a byte string)).
// Returns: one row {written}.
UNWIND $summaries AS x
MATCH (s:Session {id: x.id})
MERGE (s)-[:COST_SUMMARY]->(c:CostSummary)
ON CREATE SET c.session_id = x.id
SET c.packed = x.packed
RETURN count(c) AS written
