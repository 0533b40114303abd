// GetLog: one entry of a session's timeline. Params: $session_id, $id.
// Returns: one row {id, level, content, created_at}, none when the session has no such entry.
MATCH (:Session {id: $session_id})-[:HAS_LOG]->(l:Log {id: $id})
RETURN l.id AS id, l.level AS level, l.content AS content, l.created_at AS created_at
