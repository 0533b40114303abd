// ScanSessions: the next batch of a bounded content scan (quick_search_sessions with
// search_contents): sessions passing the filters with an id below $before, newest first, each
// with whether its title or JSON columns match (the same predicate as SearchSessions) so the
// caller only has to look into transcripts for the rest.
// Params: $before (exclusive upper id bound), $limit, $query, $json_query, $statuses,
// $agent_runtime, $genesis, $priority_class, $visibility, $show_archived, $spot_geneses.
// Returns: rows {s, matched: boolean}, id descending.
MATCH (s:Session)
WHERE s.id < $before
  AND (size($statuses) = 0 OR s.status IN $statuses)
  AND ('archived' IN $statuses OR $show_archived OR s.status <> 'archived')
  AND ($agent_runtime = '' OR s.agent_runtime = $agent_runtime)
  AND ($genesis = '' OR s.genesis = $genesis)
  AND ($visibility = '' OR s.visibility = $visibility)
  AND ($priority_class = '' OR coalesce(s.scheduling_class,
       CASE WHEN s.genesis IN $spot_geneses THEN 'spot' ELSE 'priority' END) = $priority_class)
WITH s ORDER BY s.id DESC LIMIT $limit
RETURN s, ($query = ''
       OR toLower(coalesce(s.title, '')) CONTAINS $query
       OR toLower(coalesce(s.metadata, '')) CONTAINS $json_query
       OR toLower(coalesce(s.custom_metadata, '')) CONTAINS $json_query) AS matched
