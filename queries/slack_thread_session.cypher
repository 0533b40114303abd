// SlackThreadSession: the session a Slack conversation is bound to, through the indexed copies
// of custom_metadata.slack_channel_id / slack_thread_ts. A session bound to this exact thread
// wins over one bound to the whole channel (no thread); among equals the newest. Archived
// sessions are skipped: a follow-up could not reach them.
// Params: $channel, $thread_ts (string or null). Returns: zero or one row {s}.
MATCH (s:Session {slack_channel_id: $channel})
WHERE s.status <> 'archived' AND (s.slack_thread_ts IS NULL OR s.slack_thread_ts = $thread_ts)
RETURN s
ORDER BY s.slack_thread_ts IS NULL, s.id DESC
LIMIT 1
