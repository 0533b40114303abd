// UntouchedSessions: sessions not in the trash whose record has not changed since $before,
// longest untouched first: what archive_old archives.
// Params: $before (datetime), $limit. Returns: one row {s} per session.
MATCH (s:Session)
WHERE s.status IN ['waiting', 'running', 'needs_input', 'failed'] AND s.updated_at < $before
RETURN s
ORDER BY s.updated_at, s.id
LIMIT $limit
