// NextIDs: hand out $n consecutive ids from a sequence; the counter's write lock keeps them unique.
// Params: $name (counter name), $n (how many). Returns: one row {last} — the highest id handed out.
MATCH (c:Counter {name: $name})
SET c.value = c.value + $n
RETURN c.value AS last
