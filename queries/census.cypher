// Census: how many nodes and relationships the graph holds and where each id sequence stands.
// Both counts come from Neo4j's count store, so this stays cheap on a large graph.
// Params: none. Returns: one row {nodes, relationships, counters: list of "name=value"}.
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
CALL () { MATCH (c:Counter) RETURN collect(c.name + '=' + toString(c.value)) AS counters }
RETURN nodes, relationships, counters
