// UpdateSubagentTranscript: write the sent fields of one of a session's subagent transcripts (a
// null removes one); an agent_id another of the session's has fails the uniqueness constraint.
// Params: $session_id, $id, $props (by property name), $at.
// Returns: one row {t} without its transcript, none when the session has no such transcript.
MATCH (:Session {id: $session_id})-[:HAS_SUBAGENT_TRANSCRIPT]->(t:SubagentTranscript {id: $id})
SET t += $props, t.updated_at = $at
RETURN t {.*, transcript: null} AS t
