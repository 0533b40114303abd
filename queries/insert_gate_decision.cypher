// InsertGateDecision: a new gate decision with the next id from its counter. The agent-written
// fields only: human_feedback is never among $props. Params: $props. Returns: one row {g}.
MATCH (n:Counter {name: 'gate_decision'})
SET n.value = n.value + 1
WITH n.value AS id
CREATE (g:GateDecision)
SET g = $props, g.id = id
RETURN g
