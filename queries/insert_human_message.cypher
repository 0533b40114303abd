// InsertHumanMessage: record words a named human said to a session, sealed into its session's
// hash chain, and move the session's and the fleet's chain heads to it. The only statement that
// creates a human message; no statement changes one's content, and only DeleteSession removes one.
// The caller ran LockHumanChain in the same transaction (the id, the locks, the previous digests).
// Params: $id, $session_id, $author, $channel, $content, $occurred_at, $entry_point, $slack_user_id,
// $slack_channel, $slack_permalink, $at, $seq, $content_digest, $prev_digest, $digest, $fleet_digest.
// Returns: one row {id}, none if the session's chain head is missing.
MATCH (s:Session {id: $session_id})-[:HAS_HUMAN_CHAIN]->(c:HumanChainHead)
MATCH (n:Counter {name: 'human_message'})
CREATE (s)-[:HAS_HUMAN_MESSAGE]->(h:HumanMessage {id: $id, session_id: $session_id,
  author: $author, channel: $channel, content: $content, occurred_at: $occurred_at,
  entry_point: $entry_point, slack_user_id: $slack_user_id, slack_channel: $slack_channel,
  slack_permalink: $slack_permalink, created_at: $at, seq: $seq, content_digest: $content_digest,
  prev_digest: $prev_digest, digest: $digest})
SET c.length = $seq, c.digest = $digest,
    n.chain_length = coalesce(n.chain_length, 0) + 1, n.chain_digest = $fleet_digest
RETURN h.id AS id
