// UncleEdge: the uncle edge $senior → $junior, if recorded.
// Params: $senior, $junior. Returns: zero or one row {source, created_at}.
MATCH (:Session {id: $senior})-[e:UNCLE_OF]->(:Session {id: $junior})
RETURN e.source AS source, e.created_at AS created_at
