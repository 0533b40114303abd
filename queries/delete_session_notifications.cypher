// DeleteSessionNotifications: deletes a session's notifications when it is archived; as with
// staleness, only those created at or before the archive, so a late-running effect spares a
// notification about the session after it was restored.
// Params: $session_id, $before (datetime). Returns: one row {deleted}.
OPTIONAL MATCH (n:Notification {session_id: $session_id})
WHERE n.created_at <= $before
DETACH DELETE n
RETURN count(n) AS deleted
