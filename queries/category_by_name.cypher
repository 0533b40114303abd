// CategoryByName: the category holding a name, compared case-insensitively through name_key.
// Params: $name_key (the lowercased name). Returns: zero or one row {id}.
MATCH (c:Category {name_key: $name_key})
RETURN c.id AS id
LIMIT 1
