// ListUsers: the whole roster, by key. Params: none.
// Returns: rows {key, display_name, email, slack_user_ids, notes, created_at, updated_at}.
MATCH (u:User)
RETURN u.key AS key, u.display_name AS display_name, u.email AS email,
       u.slack_user_ids AS slack_user_ids, u.notes AS notes, u.created_at AS created_at, u.updated_at AS updated_at
ORDER BY u.key
