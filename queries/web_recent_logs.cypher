// WebRecentLogs: the last $limit entries of a session's timeline, oldest of them first, and how
// many entries it has in all — what the session page lists, without reading the whole timeline.
// Params: $session_id, $limit. Returns: rows {id, level, content, created_at, total}; none when
// the timeline is empty.
MATCH (:Session {id: $session_id})-[:HAS_LOG]->(l:Log)
WITH l ORDER BY l.created_at DESC, l.id DESC
WITH collect(l) AS newest
UNWIND reverse(newest[0..$limit]) AS l
RETURN l.id AS id, l.level AS level, l.content AS content, l.created_at AS created_at, size(newest) AS total
