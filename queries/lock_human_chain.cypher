// LockHumanChain: take the locks a new human-message record is written under and read where it
// goes. Incrementing the human_message counter write-locks it, so records are chained one at a
// time fleet-wide (the counter node also holds the fleet-wide chain head); the session's chain
// head is created with its first record (safe under that lock).
// Params: $session_id, $author. Returns: zero rows when the session or the author is missing,
// else one row {id, length, prev, fleet_prev} (the new record's id; the session chain's length
// and last digest; the fleet head's digest, "" before the first record).
MATCH (s:Session {id: $session_id})
MATCH (:User {key: $author})
MATCH (n:Counter {name: 'human_message'})
SET n.value = n.value + 1
MERGE (s)-[:HAS_HUMAN_CHAIN]->(c:HumanChainHead)
ON CREATE SET c.session_id = $session_id, c.length = 0, c.digest = ''
RETURN n.value AS id, c.length AS length, c.digest AS prev, coalesce(n.chain_digest, '') AS fleet_prev
