// AsOfSpawnChain: a session and its spawn ancestors as they stood at $as_of, nearest first, up to
// nine edges up (the walk reads one more than its depth bound to tell a cut chain from a whole
// one). A session created after $as_of did not exist then. A spawn edge dates from its junior's
// creation.
// Params: $id, $as_of. Returns: zero rows when the session did not exist at $as_of, else one row {ids}.
MATCH (s:Session {id: $id})
WHERE s.created_at <= $as_of
OPTIONAL MATCH chain = (:Session)-[:SPAWNED*1..9]->(s)
WHERE all(n IN nodes(chain) WHERE n.created_at <= $as_of)
WITH s, chain ORDER BY length(chain) DESC LIMIT 1
RETURN CASE WHEN chain IS NULL THEN [s.id] ELSE [n IN reverse(nodes(chain)) | n.id] END AS ids
