// SpotCensus: the spot gauges — sessions held at their first start by reason, and how many are
// parked in the spot queue.
// Params: none. Returns: one row {held: list of {reason, sessions}, queued}.
OPTIONAL MATCH (h:Session {status: 'waiting'})
WHERE h.spot_hold_reason IS NOT NULL
WITH h.spot_hold_reason AS reason, count(h) AS n
WITH collect(CASE WHEN reason IS NULL THEN null ELSE {reason: reason, sessions: n} END) AS held
OPTIONAL MATCH (q:Session {status: 'waiting'})
WHERE q.spot_queued_at IS NOT NULL
RETURN held, count(q) AS queued
