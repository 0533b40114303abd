// ListSubagentTranscripts: one page of a session's subagent transcripts, newest first, without
// their transcript text, and how many match. Params: $session_id, $status and $subagent_type
// ('' for any), $skip, $limit. Returns: one row {total, rows: [t]}, none when the session does
// not exist.
MATCH (s:Session {id: $session_id})
RETURN COUNT {
         MATCH (s)-[:HAS_SUBAGENT_TRANSCRIPT]->(t:SubagentTranscript)
         WHERE ($status = '' OR t.status = $status) AND ($subagent_type = '' OR t.subagent_type = $subagent_type)
       } AS total,
       COLLECT {
         MATCH (s)-[:HAS_SUBAGENT_TRANSCRIPT]->(t:SubagentTranscript)
         WHERE ($status = '' OR t.status = $status) AND ($subagent_type = '' OR t.subagent_type = $subagent_type)
         WITH t ORDER BY t.created_at DESC, t.id DESC SKIP $skip LIMIT $limit
         RETURN t {.*, transcript: null}
       } AS rows
