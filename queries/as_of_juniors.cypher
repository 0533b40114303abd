// AsOfJuniors: the spawn children and uncle juniors of the given sessions at $as_of that are not
// in $seen — every link to each of the $limit lowest-id such juniors. Edges count as in
// AsOfSeniors.
// Params: $ids, $seen, $limit, $as_of. Returns: rows {from, to, kind} (from is the senior).
UNWIND $ids AS id
MATCH (:Session {id: id})-[e:SPAWNED|UNCLE_OF|FORMER_UNCLE_OF]->(j:Session)
WHERE NOT j.id IN $seen AND j.created_at <= $as_of
  AND (type(e) = 'SPAWNED' OR (e.created_at <= $as_of AND (e.removed_at IS NULL OR e.removed_at > $as_of)))
WITH DISTINCT j ORDER BY j.id LIMIT $limit
MATCH (x:Session)-[e:SPAWNED|UNCLE_OF|FORMER_UNCLE_OF]->(j)
WHERE x.id IN $ids
  AND (type(e) = 'SPAWNED' OR (e.created_at <= $as_of AND (e.removed_at IS NULL OR e.removed_at > $as_of)))
RETURN DISTINCT x.id AS from, j.id AS to, CASE type(e) WHEN 'SPAWNED' THEN 'SPAWNED' ELSE 'UNCLE_OF' END AS kind
