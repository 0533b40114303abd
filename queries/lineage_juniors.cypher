// LineageJuniors: the next level down from the given sessions — spawn children and uncle
// juniors not yet seen — the $limit lowest ids only, so a router with thousands of children
// ships no more than the walk can admit; as one row (one record is far cheaper than many).
// Params: $ids, $seen (ids already placed), $limit. Returns: one row {juniors: [{to, links: [{from, kind}]}]}.
UNWIND $ids AS sid
MATCH (:Session {id: sid})-[r:SPAWNED|UNCLE_OF]->(j:Session)
WHERE NOT j.id IN $seen
WITH j.id AS to, collect({from: sid, kind: type(r)}) AS links
ORDER BY to
LIMIT $limit
RETURN collect({to: to, links: links}) AS juniors
