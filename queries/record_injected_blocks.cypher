// RecordInjectedBlocks: add one turn's injected prompt blocks to its session's tally, one node
// per block, model and UTC day: the bytes injected, the tokens estimated for them, and how many
// times the block was sent.
// Params: $session_id, $model, $day (datetime, midnight UTC), $blocks (list of maps: block,
// bytes, tokens).
// Returns: one row {recorded} (the blocks tallied; 0 when the session is gone).
OPTIONAL MATCH (s:Session {id: $session_id})
// The session's lock first: its cost summary is packed from its tallies in this transaction,
// and two turns must not each pack a summary without the other's blocks.
SET s._lock = true
REMOVE s._lock
WITH s
CALL {
  WITH s
  WITH s WHERE s IS NOT NULL
  UNWIND $blocks AS b
  MERGE (s)-[:INJECTED]->(f:InjectedBlock {session_id: $session_id, block: b.block, model: $model, day: $day})
  ON CREATE SET f.bytes = 0, f.tokens = 0, f.occurrences = 0
  SET f.bytes = f.bytes + b.bytes, f.tokens = f.tokens + b.tokens, f.occurrences = f.occurrences + 1
  RETURN count(f) AS recorded
}
RETURN recorded
