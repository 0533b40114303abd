// DeleteNotification: deletes one notification (a dismissal; the caller checked it was read).
// Params: $id. Returns: nothing.
MATCH (n:Notification {id: $id})
DETACH DELETE n
