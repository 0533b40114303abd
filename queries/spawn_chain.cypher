// SpawnChain: a session and its spawn ancestors, nearest first. Spawn edges form a tree (one
// incoming SPAWNED per session), so the longest upward path is the chain. The literal bound 9 is
// lineage.MaxDepth + 1: one more than the walk may climb, to tell a cut chain from a complete one.
// Params: $id. Returns: zero or one row {chain: [id, parent, grandparent, …]}.
MATCH (s:Session {id: $id})
OPTIONAL MATCH p = (:Session)-[:SPAWNED*1..9]->(s)
WITH s, p ORDER BY length(p) DESC LIMIT 1
RETURN [s.id] + CASE WHEN p IS NULL THEN [] ELSE reverse([n IN nodes(p)[..-1] | n.id]) END AS chain
