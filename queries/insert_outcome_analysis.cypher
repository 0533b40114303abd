// InsertOutcomeAnalysis: a session's new current outcome analysis; the one it had is marked
// superseded. The counter is taken first, so two saves for one session are serialised.
// Params: $session_id, $props (the analysis's properties but id), $at.
// Returns: one row {a, superseded (how many were superseded: 0 or 1)}.
MATCH (n:Counter {name: 'outcome_analysis'})
SET n.value = n.value + 1
WITH n.value AS id
OPTIONAL MATCH (old:OutcomeAnalysis {session_id: $session_id})
WHERE old.superseded_at IS NULL
SET old.superseded_at = $at
WITH id, count(old) AS superseded
CREATE (a:OutcomeAnalysis)
SET a = $props, a.id = id
RETURN a, superseded
