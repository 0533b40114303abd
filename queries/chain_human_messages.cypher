// ChainHumanMessages: the migration's write: seal records written before human messages were
// hash-chained. It adds the chain fields to a record that has none and never touches one that
// has (nor any record's content); it moves the sessions' and the fleet's chain heads.
// Params: $records ([{id, seq, content_digest, prev_digest, digest}]), $heads ([{session_id,
// length, digest}]), $fleet_length, $fleet_digest. Returns: one row {chained}.
CALL (*) {
  UNWIND $records AS r
  MATCH (h:HumanMessage {id: r.id})
  WHERE h.digest IS NULL
  SET h.seq = r.seq, h.content_digest = r.content_digest, h.prev_digest = r.prev_digest, h.digest = r.digest
  RETURN count(h) AS chained
}
CALL (*) {
  UNWIND $heads AS hd
  MATCH (s:Session {id: hd.session_id})
  MERGE (s)-[:HAS_HUMAN_CHAIN]->(c:HumanChainHead)
  SET c.session_id = hd.session_id, c.length = hd.length, c.digest = hd.digest
}
MATCH (n:Counter {name: 'human_message'})
SET n.chain_length = $fleet_length, n.chain_digest = $fleet_digest
RETURN chained
