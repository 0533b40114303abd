// DeleteLog: remove one entry of a session's timeline. Params: $session_id, $id.
// Returns: one row {id} when an entry was removed, none otherwise.
MATCH (:Session {id: $session_id})-[:HAS_LOG]->(l:Log {id: $id})
WITH l, l.id AS id
DETACH DELETE l
RETURN id
