// SearchGateDecisions: gate decisions newest first, filtered (a null filter matches all): $id,
// $surface, $decision (exact), $query (lower-case substring of surface, decision, rationale and
// details), $with_feedback (only those a human corrected); one page of them and the total.
// Params: $id, $surface, $decision, $query, $with_feedback, $skip, $limit.
// Returns: one row {total, page (list of g)}.
MATCH (g:GateDecision)
WHERE ($id IS NULL OR g.id = $id)
  AND ($surface IS NULL OR g.surface = $surface)
  AND ($decision IS NULL OR g.decision = $decision)
  AND ($with_feedback = false OR g.human_feedback IS NOT NULL)
  AND ($query IS NULL OR toLower(g.surface + ' ' + g.decision + ' ' + coalesce(g.rationale, '') + ' ' +
       coalesce(g.details_json, '')) CONTAINS $query)
WITH g ORDER BY g.id DESC
WITH collect(g) AS found
RETURN size(found) AS total, found[$skip..($skip + $limit)] AS page
