// WriteCostSummaries: set the sessions' packed cost summaries, creating the summary node on a
// session's first, with the first and last day it holds (days since 1970; null when none).
// Params: $summaries (list of maps: id, packed (a byte string), first_day, last_day).
// Returns: one row {written}.
UNWIND $summaries AS x
MATCH (s:Session {id: x.id})
MERGE (s)-[:COST_SUMMARY]->(c:CostSummary)
ON CREATE SET c.session_id = x.id
SET c.packed = x.packed, c.first_day = x.first_day, c.last_day = x.last_day
RETURN count(c) AS written
