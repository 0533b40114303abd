// ListCategories: every category in board order (position, then id) with how many sessions it
// holds. Params: none. Returns: rows {c, sessions}.
MATCH (c:Category)
OPTIONAL MATCH (s:Session {category_id: c.id})
WITH c, count(s) AS sessions
ORDER BY c.position, c.id
RETURN c, sessions
