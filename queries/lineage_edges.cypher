// LineageEdges: every spawn and uncle edge, for whole-graph verification (an independent
// acyclicity check). Params: none. Returns: rows {from, to}.
MATCH (a:Session)-[:SPAWNED|UNCLE_OF]->(b:Session)
RETURN a.id AS from, b.id AS to
