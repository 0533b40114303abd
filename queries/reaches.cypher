// Reaches: whether $from reaches $to going down spawn and uncle edges, at any distance. A
// bidirectional breadth-first search (shortestPath) that is complete — no node budget after
// which the answer lapses. The caller handles $from = $to.
// Params: $from, $to (session ids). Returns: one row {reaches: bool}, none if either is missing.
MATCH (a:Session {id: $from}), (b:Session {id: $to})
OPTIONAL MATCH p = shortestPath((a)-[:SPAWNED|UNCLE_OF*]->(b))
RETURN p IS NOT NULL AS reaches
