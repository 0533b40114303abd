// DismissNotification: deletes one notification, only once it has been read (dismissing is
// destructive, so an unread one is refused and kept).
// Params: $id. Returns: no row when no notification has the id, else one row {dismissed}.
MATCH (n:Notification {id: $id})
WITH n, n.read AS dismissed
FOREACH (gone IN CASE WHEN dismissed THEN [n] ELSE [] END | DETACH DELETE gone)
RETURN dismissed
