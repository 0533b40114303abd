// DeleteUncleEdge: remove exactly the uncle edge $senior → $junior.
// Params: $senior, $junior. Returns: one row {deleted: count}.
OPTIONAL MATCH (:Session {id: $senior})-[e:UNCLE_OF]->(:Session {id: $junior})
DELETE e
RETURN count(e) AS deleted
