// LineageEdges: every spawn and uncle edge, for whole-graph verification (an independent
// acyclicity check); as one row of two parallel lists, since a million records cost far more
// over Bolt than one. Params: none. Returns: one row {froms, tos}.
MATCH (a:Session)-[:SPAWNED|UNCLE_OF]->(b:Session)
RETURN collect(a.id) AS froms, collect(b.id) AS tos
