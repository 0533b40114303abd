// AppendLog: add one entry to each named session's timeline (the same text on every one).
// Sessions that do not exist are skipped. Params: $session_ids (list), $level, $content, $at
// (datetime). Returns: one row per entry written {session_id, id}.
UNWIND $session_ids AS sid
MATCH (s:Session {id: sid})
CREATE (s)-[:HAS_LOG]->(l:Log {id: randomUUID(), session_id: sid, level: $level, content: $content, created_at: $at})
RETURN sid AS session_id, l.id AS id
