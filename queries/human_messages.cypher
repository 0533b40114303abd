// HumanMessages: every human message said to any of the given sessions, chronological
// (occurred_at, then id); with $as_of, only those recorded by then.
// Params: $session_ids, $as_of (a time, or null for all).
// Returns: rows {id, session_id, author, channel, content, occurred_at, entry_point,
// slack_user_id, slack_channel, slack_permalink}.
UNWIND $session_ids AS sid
MATCH (:Session {id: sid})-[:HAS_HUMAN_MESSAGE]->(h:HumanMessage)
WHERE $as_of IS NULL OR h.created_at <= $as_of
RETURN h.id AS id, h.session_id AS session_id, h.author AS author, h.channel AS channel,
       h.content AS content, h.occurred_at AS occurred_at, h.entry_point AS entry_point,
       h.slack_user_id AS slack_user_id, h.slack_channel AS slack_channel, h.slack_permalink AS slack_permalink
ORDER BY occurred_at, id
