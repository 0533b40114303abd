// BacklogQueue: the queued work-backlog items in rank order. Params: none. Returns: rows {b}.
MATCH (b:BacklogItem {status: 'queued'})
RETURN b
ORDER BY b.rank, b.id
