// GetElicitation: an elicitation by its public request_id, else by its numeric id.
// Params: $key (the request id), $id (the key as a number, or null). Returns: one row {e}.
MATCH (e:Elicitation)
WHERE e.request_id = $key OR ($id IS NOT NULL AND e.id = $id)
RETURN e
ORDER BY CASE WHEN e.request_id = $key THEN 0 ELSE 1 END
LIMIT 1
