// SetNotificationDelivery: records how a notification's webhook delivery ended.
// Params: $id, $delivery (pending, delivered, failed, skipped), $at (datetime).
// Returns: no row when the notification is gone, else one row {n}.
MATCH (n:Notification {id: $id})
SET n.delivery = $delivery, n.delivery_at = $at
RETURN n
