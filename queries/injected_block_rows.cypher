// InjectedBlockRows: the prompt blocks Zimmer injected into a session's turns over a window,
// summed per block and model; with $descendants, into the session's and every session it
// spawned, transitively over SPAWNED edges only (uncle edges excluded), each session once.
// Params: $session_id, $descendants (bool), $from, $to (datetime, to exclusive).
// Returns: rows {block, model, occurrences, bytes, tokens}.
CALL {
  // Guarded by rows, as in spend_rows: a parameter-only WHERE would be applied after the walk,
  // so every report on one session would first walk its whole spawn subtree.
  UNWIND CASE WHEN $descendants THEN [] ELSE [true] END AS one
  MATCH (s:Session {id: $session_id})
  RETURN s
  UNION
  UNWIND CASE WHEN $descendants THEN [true] ELSE [] END AS tree
  MATCH (:Session {id: $session_id})-[:SPAWNED*0..]->(s:Session)
  RETURN s
}
MATCH (s)-[:INJECTED]->(f:InjectedBlock)
WHERE $from <= f.day < $to
RETURN f.block AS block, f.model AS model, sum(f.occurrences) AS occurrences, sum(f.bytes) AS bytes, sum(f.tokens) AS tokens
ORDER BY block, model
