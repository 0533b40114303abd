// EnsureCounters: create the sequence nodes that hand out integer ids, leaving existing values alone.
// Params: $names (list of counter names). Returns: nothing.
UNWIND $names AS name
MERGE (c:Counter {name: name})
ON CREATE SET c.value = 0
