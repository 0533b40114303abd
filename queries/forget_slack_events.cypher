// ForgetSlackEvents: drops marks seen before the cutoff, at most 100 per call so a claim never
// turns into a long purge; each claim runs it, which keeps the set bounded without a sweep.
// Params: $before (datetime). Returns: nothing.
MATCH (e:SlackEvent)
WHERE e.seen_at < $before
WITH e LIMIT 100
DELETE e
