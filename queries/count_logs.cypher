// CountLogs: how many entries a session's timeline holds, optionally one level only ('' for all).
// Params: $session_id, $level. Returns: one row {total}.
MATCH (:Session {id: $session_id})-[:HAS_LOG]->(l:Log)
WHERE $level = '' OR l.level = $level
RETURN count(l) AS total
