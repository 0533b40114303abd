// Reaches: whether $from reaches $to going down spawn and uncle edges, at any distance. One
// breadth-first search that visits each session at most once and stops at the first hit —
// complete, no budget after which the answer lapses — walking down from $from or up from $to,
// whichever end has fewer lineage edges on that side (as in record_uncle_edge). The caller
// handles $from = $to.
// Params: $from, $to (session ids). Returns: one row {reaches: bool}, none if either is missing.
MATCH (a:Session {id: $from}), (b:Session {id: $to})
CALL (a, b) {
  WITH a, b WHERE COUNT { (a)-[:SPAWNED|UNCLE_OF]->() } <= COUNT { (b)<-[:SPAWNED|UNCLE_OF]-() }
  RETURN EXISTS { MATCH (a)-[:SPAWNED|UNCLE_OF*]->(x) WITH DISTINCT x WHERE x = b RETURN 1 } AS reaches
  UNION ALL
  WITH a, b WHERE COUNT { (a)-[:SPAWNED|UNCLE_OF]->() } > COUNT { (b)<-[:SPAWNED|UNCLE_OF]-() }
  RETURN EXISTS { MATCH (b)<-[:SPAWNED|UNCLE_OF*]-(x) WITH DISTINCT x WHERE x = a RETURN 1 } AS reaches
}
RETURN reaches
