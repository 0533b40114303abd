// CreateNotification: records a notification once per key. A second call with the same key (a
// redelivered effect, a retried job) finds the first notification and changes nothing; the
// key's uniqueness constraint makes a concurrent MERGE wait for this one and then find it. The
// id comes from the 'notification' counter, taken only when the node is new.
// Params: $session_id, $key, $type, $message, $at (datetime).
// Returns: no row when the session does not exist, else one row {n, s, created}.
MATCH (s:Session {id: $session_id})
MERGE (n:Notification {key: $key})
  ON CREATE SET n.session_id = $session_id, n.notification_type = $type, n.message = $message,
    n.read = false, n.stale = false, n.delivery = 'pending', n.created_at = $at, n.updated_at = $at
WITH s, n, n.id IS NULL AS created
OPTIONAL MATCH (c:Counter {name: 'notification'}) WHERE created
SET c.value = c.value + 1
SET n.id = coalesce(n.id, c.value)
MERGE (s)-[:HAS_NOTIFICATION]->(n)
RETURN n, s, created
