// GetSubagentTranscript: one of a session's subagent transcripts.
// Params: $session_id, $id, $with_transcript (bool: include the transcript text).
// Returns: one row {t}, none when the session has no such transcript.
MATCH (:Session {id: $session_id})-[:HAS_SUBAGENT_TRANSCRIPT]->(t:SubagentTranscript {id: $id})
RETURN CASE WHEN $with_transcript THEN t {.*} ELSE t {.*, transcript: null} END AS t
