// ResolveElicitation: answer a pending elicitation, once: a resolved one is left alone and
// returns no row. Params: $id, $status, $response_json (or null), $at. Returns: one row {e}.
MATCH (e:Elicitation {id: $id})
WHERE e.status = 'pending'
SET e.status = $status, e.response_json = $response_json, e.responded_at = $at
RETURN e
