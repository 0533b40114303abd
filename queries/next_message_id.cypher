// NextMessageID: hand out the next enqueued-message id; the counter's write lock makes ids unique
// and increasing across sessions.
// Params: none. Returns: one row {id}.
MATCH (c:Counter {name: 'enqueued_message'})
SET c.value = c.value + 1
RETURN c.value AS id
