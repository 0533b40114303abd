// NotificationBadge: how many notifications are pending (active and unread).
// Params: none. Returns: one row {pending}.
MATCH (n:Notification)
WHERE n.stale = false AND n.read = false
RETURN count(n) AS pending
