// RetireUncleEdge: take the live uncle edge $senior → $junior out of the lineage and keep it as
// a FORMER_UNCLE_OF edge that says when and by whom it was removed, so the lineage as it stood
// at an earlier time can still be read. A retired edge is another relationship type: no walk,
// reachability search or acyclicity check matches it, so their plans and guarantees are unchanged.
// Params: $senior, $junior, $at (removal time), $by (who removed it), $via (the entry point).
// Returns: zero rows when there is no live edge, else one row {source, created_at}.
MATCH (a:Session {id: $senior})-[e:UNCLE_OF]->(b:Session {id: $junior})
CREATE (a)-[:FORMER_UNCLE_OF {source: e.source, created_at: e.created_at, removed_at: $at, removed_by: $by,
  removed_via: $via}]->(b)
WITH e, e.source AS source, e.created_at AS created_at
DELETE e
RETURN source, created_at
