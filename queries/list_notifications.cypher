// ListNotifications: one page of the active (not stale) notifications, newest first, each with
// the session it is about, and the filter's total.
// Params: $read (true, false, or null for both), $skip, $limit.
// Returns: one row {total, rows: list of {n, s}}.
OPTIONAL MATCH (n:Notification)
WHERE n.stale = false AND ($read IS NULL OR n.read = $read)
WITH n ORDER BY n.created_at DESC, n.id DESC
WITH collect(n) AS matched
RETURN size(matched) AS total,
  [x IN matched[$skip..$skip + $limit] | {n: x, s: head([(s:Session)-[:HAS_NOTIFICATION]->(x) | s])}] AS rows
