// ListLogs: a session's timeline, oldest first, optionally one level only ('' for all).
// Params: $session_id, $level, $skip, $limit. Returns: rows {id, level, content, created_at}.
MATCH (:Session {id: $session_id})-[:HAS_LOG]->(l:Log)
WHERE $level = '' OR l.level = $level
RETURN l.id AS id, l.level AS level, l.content AS content, l.created_at AS created_at
ORDER BY l.created_at, l.id
SKIP $skip LIMIT $limit
