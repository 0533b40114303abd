// InsertElicitation: a pending elicitation with the next id from its counter; a request_id
// already taken fails the uniqueness constraint. Params: $props (all but id). Returns: one row {e}.
MATCH (n:Counter {name: 'elicitation'})
SET n.value = n.value + 1
WITH n.value AS id
CREATE (e:Elicitation)
SET e = $props, e.id = id
RETURN e
