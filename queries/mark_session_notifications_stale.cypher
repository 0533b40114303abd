// MarkSessionNotificationsStale: pulls a session's notifications out of the humans' queue once
// the session was actioned (resumed, unblocked). Only those created at or before the transition
// go stale: a late-running effect must not hide a notification about a later rest.
// Params: $session_id, $before (datetime: the transition's time), $at (datetime).
// Returns: one row {marked}.
OPTIONAL MATCH (n:Notification {session_id: $session_id})
WHERE n.stale = false AND n.created_at <= $before
SET n.stale = true, n.updated_at = $at
RETURN count(n) AS marked
