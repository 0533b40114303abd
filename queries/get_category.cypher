// GetCategory: one category by id. Params: $id. Returns: zero or one row {c}.
MATCH (c:Category {id: $id})
RETURN c
