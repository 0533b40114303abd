// UpdateCategory: write a category's editable fields (a null description removes it).
// Params: $id, $name, $name_key, $description, $is_frozen, $at. Returns: zero or one row {c}.
MATCH (c:Category {id: $id})
SET c.name = $name, c.name_key = $name_key, c.description = $description, c.is_frozen = $is_frozen,
    c.updated_at = $at
RETURN c
