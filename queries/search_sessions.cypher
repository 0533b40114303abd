// SearchSessions: one page of quick_search_sessions. $query (lowercased) is one substring, a
// phrase, matched against the title; $json_query is the same phrase in the JSON columns' stored
// spelling (compact, as the store writes them), matched against metadata and custom_metadata.
// '' matches everything. Archived sessions are left out unless $show_archived or 'archived' is
// among $statuses. priority_class is derived on read, as in ListSessions. $agent_root ('' = any),
// $category_id (null = any) and $favorites_only are the web UI's list filters.
// Params: $query, $json_query, $statuses (list, empty = any), $agent_runtime, $genesis,
// $priority_class, $visibility, $show_archived, $by_precedence, $agent_root, $category_id,
// $favorites_only, $skip, $limit, $spot_geneses.
// Returns: one row {total, sessions: list of nodes}.
MATCH (s:Session)
WHERE (size($statuses) = 0 OR s.status IN $statuses)
  AND ('archived' IN $statuses OR $show_archived OR s.status <> 'archived')
  AND ($agent_runtime = '' OR s.agent_runtime = $agent_runtime)
  AND ($genesis = '' OR s.genesis = $genesis)
  AND ($visibility = '' OR s.visibility = $visibility)
  AND ($agent_root = '' OR s.agent_root_key = $agent_root)
  AND ($category_id IS NULL OR s.category_id = $category_id)
  AND (NOT $favorites_only OR s.favorited = true)
  AND ($priority_class = '' OR coalesce(s.scheduling_class,
       CASE WHEN s.genesis IN $spot_geneses THEN 'spot' ELSE 'priority' END) = $priority_class)
  AND ($query = ''
       OR toLower(coalesce(s.title, '')) CONTAINS $query
       OR toLower(coalesce(s.metadata, '')) CONTAINS $json_query
       OR toLower(coalesce(s.custom_metadata, '')) CONTAINS $json_query)
WITH s
ORDER BY CASE WHEN $by_precedence THEN -s.precedence ELSE 0 END,
         CASE WHEN $by_precedence THEN s.id ELSE -s.id END
WITH collect(s) AS matched
RETURN size(matched) AS total, matched[$skip..$skip + $limit] AS sessions
