// SaveUser: create or replace one roster row (keyed by $key). The caller holds the roster lock
// and has validated the row. Params: $key, $display_name, $email, $slack_user_ids, $notes, $at.
// Returns: one row {key}.
MERGE (u:User {key: $key})
ON CREATE SET u.created_at = $at
SET u.display_name = $display_name, u.email = $email, u.slack_user_ids = $slack_user_ids,
    u.notes = $notes, u.updated_at = $at
RETURN u.key AS key
