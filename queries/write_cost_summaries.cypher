// WriteCostSummaries: set the sessions' packed cost summaries, creating the summary node on a
// session's first; a part a summary does not carry (spend or injected) keeps its value.
// Params: $summaries (list of maps: id, and spend and/or injected, byte strings).
// Returns: one row {written}.
UNWIND $summaries AS x
MATCH (s:Session {id: x.id})
MERGE (s)-[:COST_SUMMARY]->(c:CostSummary)
ON CREATE SET c.session_id = x.id
SET c.spend = coalesce(x.spend, c.spend), c.injected = coalesce(x.injected, c.injected)
RETURN count(c) AS written
