// DropCostSummaryNodes: delete the named sessions' CostSummary nodes, where summaries were kept
// before they moved onto the sessions; the summaries' migration runs it after repacking them.
// Params: $session_ids (list). Returns: one row {dropped}.
UNWIND $session_ids AS id
MATCH (:Session {id: id})-[:COST_SUMMARY]->(c:CostSummary)
DETACH DELETE c
RETURN count(*) AS dropped
