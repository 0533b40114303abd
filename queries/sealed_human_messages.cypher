// SealedHumanMessages: the human-message records of the given sessions with their chain fields,
// by id; with $as_of, only those recorded by then.
// Params: $session_ids, $as_of (a time, or null for all). Returns: rows {record: the record's properties}.
UNWIND $session_ids AS sid
MATCH (:Session {id: sid})-[:HAS_HUMAN_MESSAGE]->(h:HumanMessage)
WHERE $as_of IS NULL OR h.created_at <= $as_of
RETURN properties(h) AS record
ORDER BY h.id
