// SetGateFeedback: a human's correction of one gate decision (the browser is its only writer).
// Params: $id, $feedback, $by, $at. Returns: one row {g}.
MATCH (g:GateDecision {id: $id})
SET g.human_feedback = $feedback, g.feedback_by = $by, g.feedback_at = $at
RETURN g
