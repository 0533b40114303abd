// InsertHumanMessage: record words a named human said to a session. The only statement that
// creates a human message; no statement updates one, and only DeleteSession removes one.
// The author must be on the roster at insert time.
// Params: $session_id, $author, $channel, $content, $occurred_at, $entry_point, $slack_user_id,
// $slack_channel, $slack_permalink, $at. Returns: one row {id}, none if session or author is missing.
MATCH (s:Session {id: $session_id})
MATCH (:User {key: $author})
MATCH (c:Counter {name: 'human_message'})
SET c.value = c.value + 1
CREATE (s)-[:HAS_HUMAN_MESSAGE]->(h:HumanMessage {id: c.value, session_id: $session_id,
  author: $author, channel: $channel, content: $content, occurred_at: $occurred_at,
  entry_point: $entry_point, slack_user_id: $slack_user_id, slack_channel: $slack_channel,
  slack_permalink: $slack_permalink, created_at: $at})
RETURN h.id AS id
