// ListTriggers: one page of triggers, newest first, with their conditions and the filter's total.
// Params: $type ("" any, else only triggers with a condition of that type), $status ("" any),
// $roots (null any, else only triggers on these agent roots), $skip, $limit.
// Returns: rows {total, t, conditions}; a single row with t null when the page is empty.
MATCH (t:Trigger)
WHERE ($status = '' OR t.status = $status)
  AND ($roots IS NULL OR t.agent_root_name IN $roots)
  AND ($type = '' OR EXISTS { (t)-[:HAS_CONDITION]->(:TriggerCondition {condition_type: $type}) })
WITH t ORDER BY t.id DESC
WITH collect(t) AS matched
WITH size(matched) AS total, matched[$skip..($skip + $limit)] AS page
UNWIND (CASE WHEN size(page) = 0 THEN [null] ELSE page END) AS t
OPTIONAL MATCH (t)-[:HAS_CONDITION]->(c:TriggerCondition)
WITH total, t, collect(c) AS conditions
RETURN total, t, conditions
ORDER BY t.id DESC
