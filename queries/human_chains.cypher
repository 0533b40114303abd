// HumanChains: the human-message chains of sessions, for verification: each session's records
// in id order (the order they were chained in) with its chain head. One session ($session_id),
// or a page of every session that has records or a head (ids above $after, $limit of them).
// Params: $session_id (or null), $after, $limit. Returns: rows {session_id, records: [record
// maps], head: {length, digest} or null}, by session id.
MATCH (s:Session)
WHERE ($session_id IS NULL OR s.id = $session_id) AND s.id > $after
  AND (EXISTS { (s)-[:HAS_HUMAN_MESSAGE]->(:HumanMessage) } OR EXISTS { (s)-[:HAS_HUMAN_CHAIN]->(:HumanChainHead) })
WITH s ORDER BY s.id LIMIT $limit
RETURN s.id AS session_id,
  COLLECT { MATCH (s)-[:HAS_HUMAN_MESSAGE]->(h:HumanMessage) WITH h ORDER BY h.id RETURN properties(h) } AS records,
  COLLECT { MATCH (s)-[:HAS_HUMAN_CHAIN]->(c:HumanChainHead) RETURN c{.length, .digest} }[0] AS head
