// FleetChainHead: the fleet-wide human-message chain head: how many records were ever chained and
// the digest folding all of them, in the order they were written.
// Params: none. Returns: one row {length, digest}.
MATCH (n:Counter {name: 'human_message'})
RETURN coalesce(n.chain_length, 0) AS length, coalesce(n.chain_digest, '') AS digest
