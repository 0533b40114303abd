// UnlabelledSpawners: the next sessions, in id order after $after, for the migration that labels
// :Spawner every session that spawned before the label existed; none once the migration is
// done, and finding none marks it done. Every session is paged (a spawner is known only by its
// edges), from the id index in order.
// Params: $after (session id), $limit, $at (datetime).
// Returns: one row {ids}.
MERGE (m:Migration {name: 'spawner_labels'})
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
