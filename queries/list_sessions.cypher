// ListSessions: one page of sessions, newest first, with the total count of the filter.
// An empty-string filter matches everything. priority_class is derived on read: the explicit
// scheduling_class, else the default class of the genesis ($spot_geneses lists the spot ones).
// Newest first is id order: ids are handed out in creation order under the counter lock.
// Params: $status, $agent_runtime, $genesis, $priority_class, $show_archived, $skip, $limit,
// $spot_geneses. Returns: one row {total, sessions: list of nodes}.
MATCH (s:Session)
WHERE ($status = '' OR s.status = $status)
  AND ($status = 'archived' OR $show_archived OR s.status <> 'archived')
  AND ($agent_runtime = '' OR s.agent_runtime = $agent_runtime)
  AND ($genesis = '' OR s.genesis = $genesis)
  AND ($priority_class = '' OR coalesce(s.scheduling_class,
       CASE WHEN s.genesis IN $spot_geneses THEN 'spot' ELSE 'priority' END) = $priority_class)
WITH s ORDER BY s.id DESC
WITH collect(s) AS matched
RETURN size(matched) AS total, matched[$skip..$skip + $limit] AS sessions
