// UpdateLog: change an entry's content and/or level (null leaves it). Params: $session_id, $id,
// $level, $content. Returns: one row {id, level, content, created_at}, none when no such entry.
MATCH (:Session {id: $session_id})-[:HAS_LOG]->(l:Log {id: $id})
SET l.level = coalesce($level, l.level), l.content = coalesce($content, l.content)
RETURN l.id AS id, l.level AS level, l.content AS content, l.created_at AS created_at
