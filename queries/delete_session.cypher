// DeleteSession: hard-delete a session with everything it owns; children keep their rows and
// lose their parent pointer (SET NULL), uncle edges go with the node (CASCADE). This is the
// only statement that removes a human message: the cascade of its session's deletion.
// Params: $id. Returns: one row {deleted: bool}.
OPTIONAL MATCH (s:Session {id: $id})
OPTIONAL MATCH (child:Session {parent_session_id: $id})
SET child.parent_session_id = null
WITH s, count(child) AS _
OPTIONAL MATCH (s)-[:HAS_MESSAGE|HAS_LOG|HAS_HUMAN_MESSAGE|HAS_HUMAN_CHAIN|HAS_TOKEN|HAS_NOTIFICATION|HAS_STATUS_SUMMARY|HAS_SUBAGENT_TRANSCRIPT|INJECTED]->(owned)
DETACH DELETE owned
WITH DISTINCT s
DETACH DELETE s
RETURN s IS NOT NULL AS deleted
