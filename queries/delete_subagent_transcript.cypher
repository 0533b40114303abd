// DeleteSubagentTranscript: remove one of a session's subagent transcripts.
// Params: $session_id, $id. Returns: one row {id} when one was removed, none otherwise.
MATCH (:Session {id: $session_id})-[:HAS_SUBAGENT_TRANSCRIPT]->(t:SubagentTranscript {id: $id})
WITH t, t.id AS id
DETACH DELETE t
RETURN id
