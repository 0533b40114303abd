// EverySessionOnce: the next sessions, in id order after $after, for a once-only migration that
// must look at every session (the sessions it changes are known only by their edges); none once
// the migration is done, and finding none marks it done.
// Params: $migration (its name), $after (session id), $limit, $at (datetime).
// Returns: one row {ids}.
MERGE (m:Migration {name: $migration})
SET m.at = $at
WITH m, coalesce(m.done, false) AS done
CALL (done) {
  WITH done WHERE NOT done
  MATCH (s:Session)
  WHERE s.id > $after
  WITH s.id AS id
  ORDER BY id
  LIMIT $limit
  RETURN collect(id) AS found
}
WITH m, coalesce(found, []) AS ids
SET m.done = size(ids) = 0
RETURN ids
