// SeedUsers: the roster rows every deployment starts with; existing rows are never changed
// (a deployment's edits at /supervisor/users win). Slack ids always ship empty.
// Params: $users (list of {key, display_name, email, notes}), $at. Returns: one row {seeded}.
UNWIND $users AS u
MERGE (x:User {key: u.key})
ON CREATE SET x.display_name = u.display_name, x.email = u.email, x.notes = u.notes,
  x.slack_user_ids = [], x.created_at = $at, x.updated_at = $at
RETURN count(x) AS seeded
