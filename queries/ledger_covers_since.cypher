// LedgerCoversSince: the oldest request the token ledger holds, read off the called_at index.
// Params: none. Returns: one row {since} (datetime), none when the ledger is empty.
MATCH (u:TokenUsage)
WHERE u.called_at IS NOT NULL
RETURN u.called_at AS since
ORDER BY u.called_at
LIMIT 1
