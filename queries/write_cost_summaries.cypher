// WriteCostSummaries: set the sessions' packed cost summaries, with the first and last day each
// holds (days since 1970; null when none), on the session nodes themselves: a roll-up reads
// them off the sessions its walk reaches, without a further hop per session.
// Params: $summaries (list of maps: id, packed (a byte string), first_day, last_day).
// Returns: one row {written}.
UNWIND $summaries AS x
MATCH (s:Session {id: x.id})
SET s.cost_summary = x.packed, s.cost_first_day = x.first_day, s.cost_last_day = x.last_day
RETURN count(s) AS written
