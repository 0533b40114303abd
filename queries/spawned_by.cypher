// SpawnedBy: whether $id descends from $ancestor over spawn edges, at any depth (uncle edges do
// not count: an uncle is a claim about seniority, not authority). The caller handles $id = $ancestor.
// Params: $ancestor, $id. Returns: one row {spawned}, none when either session is missing.
MATCH (a:Session {id: $ancestor}), (b:Session {id: $id})
OPTIONAL MATCH p = shortestPath((a)-[:SPAWNED*]->(b))
RETURN p IS NOT NULL AS spawned
