// AsOfSeniors: every spawn parent and uncle of the given sessions at $as_of. An uncle edge counts
// from its created_at until its removed_at (a FORMER_UNCLE_OF edge); both ends must have existed.
// Params: $ids, $as_of. Returns: rows {from, to, kind} (kind SPAWNED or UNCLE_OF; from is the senior).
UNWIND $ids AS id
MATCH (p:Session)-[e:SPAWNED|UNCLE_OF|FORMER_UNCLE_OF]->(j:Session {id: id})
WHERE p.created_at <= $as_of AND j.created_at <= $as_of
  AND (type(e) = 'SPAWNED' OR (e.created_at <= $as_of AND (e.removed_at IS NULL OR e.removed_at > $as_of)))
RETURN DISTINCT p.id AS from, j.id AS to, CASE type(e) WHEN 'SPAWNED' THEN 'SPAWNED' ELSE 'UNCLE_OF' END AS kind
