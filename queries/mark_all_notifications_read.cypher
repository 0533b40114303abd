// MarkAllNotificationsRead: marks every pending (active, unread) notification read.
// Params: $at (datetime). Returns: one row {marked}.
OPTIONAL MATCH (n:Notification)
WHERE n.stale = false AND n.read = false
SET n.read = true, n.updated_at = $at
RETURN count(n) AS marked
