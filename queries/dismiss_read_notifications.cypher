// DismissReadNotifications: deletes every active notification that has been read.
// Params: none. Returns: one row {dismissed}.
OPTIONAL MATCH (n:Notification)
WHERE n.stale = false AND n.read = true
DETACH DELETE n
RETURN count(n) AS dismissed
