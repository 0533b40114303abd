// UnchainedHumanMessages: the migration's read: the records written before human messages were
// hash-chained (no digest), by id, with their sessions' chain heads. Write-locks the
// human_message counter first, so no record is chained meanwhile.
// Params: none. Returns: one row {records: [record maps] by id, heads: [{session_id, length,
// digest}], fleet_length, fleet_digest}.
MATCH (n:Counter {name: 'human_message'})
SET n._lock = true
REMOVE n._lock
RETURN COLLECT { MATCH (h:HumanMessage) WHERE h.digest IS NULL WITH h ORDER BY h.id RETURN properties(h) } AS records,
  COLLECT { MATCH (c:HumanChainHead) RETURN c{.session_id, .length, .digest} } AS heads,
  coalesce(n.chain_length, 0) AS fleet_length, coalesce(n.chain_digest, '') AS fleet_digest
