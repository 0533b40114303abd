// BacklogHistory: the items that left the work backlog (starting, started or removed), most
// recently changed first. Params: $limit. Returns: rows {b}.
MATCH (b:BacklogItem)
WHERE b.status <> 'queued'
RETURN b
ORDER BY b.updated_at DESC, b.id DESC
LIMIT $limit
