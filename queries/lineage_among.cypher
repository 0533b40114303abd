// LineageAmong: what the provenance export shows of the edges around a set of sessions: every
// spawn and uncle edge between them, and every removed uncle edge with either end among them
// (its other end may have left the hierarchy with it), with what each recorded.
// Params: $ids. Returns: rows {kind (SPAWNED, UNCLE_OF, FORMER_UNCLE_OF), from, to, source,
// created_at, removed_at, removed_by, removed_via}, by from, to and created_at.
UNWIND $ids AS id
MATCH (m:Session {id: id})
CALL (m) {
  MATCH (m)-[e:SPAWNED|UNCLE_OF|FORMER_UNCLE_OF]->(b:Session)
  WHERE b.id IN $ids OR type(e) = 'FORMER_UNCLE_OF'
  RETURN e, m AS a, b
  UNION
  MATCH (a:Session)-[e:FORMER_UNCLE_OF]->(m)
  WHERE NOT a.id IN $ids
  RETURN e, a, m AS b
}
RETURN type(e) AS kind, a.id AS from, b.id AS to, e.source AS source,
  CASE type(e) WHEN 'SPAWNED' THEN b.created_at ELSE e.created_at END AS created_at,
  e.removed_at AS removed_at, e.removed_by AS removed_by, e.removed_via AS removed_via
ORDER BY from, to, created_at
