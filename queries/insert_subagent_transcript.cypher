// InsertSubagentTranscript: a session's new subagent transcript with the next id from its
// counter; an agent_id the session already has fails the (session_id, agent_id) uniqueness
// constraint. Params: $session_id, $props (the sent fields, by property name), $at.
// Returns: one row {t} without its transcript, none when the session does not exist.
MATCH (s:Session {id: $session_id})
MATCH (n:Counter {name: 'subagent_transcript'})
SET n.value = n.value + 1
WITH s, n.value AS id
CREATE (s)-[:HAS_SUBAGENT_TRANSCRIPT]->(t:SubagentTranscript)
SET t = $props, t.id = id, t.session_id = $session_id, t.created_at = $at, t.updated_at = $at
RETURN t {.*, transcript: null} AS t
