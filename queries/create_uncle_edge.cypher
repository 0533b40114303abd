// CreateUncleEdge: record $senior as an additional senior of $junior (at most one per ordered
// pair). The caller holds the lineage lock and has checked $junior cannot reach $senior.
// Params: $senior, $junior, $source, $at. Returns: one row {created: bool}.
MATCH (a:Session {id: $senior}), (b:Session {id: $junior})
MERGE (a)-[e:UNCLE_OF]->(b)
ON CREATE SET e.source = $source, e.created_at = $at, e._new = true
WITH e, coalesce(e._new, false) AS created
REMOVE e._new
RETURN created
