// DeleteCategory: remove a category; its sessions fall back to Uncategorized.
// Params: $id. Returns: one row {moved: sessions that lost the category}.
MATCH (c:Category {id: $id})
OPTIONAL MATCH (s:Session {category_id: $id})
REMOVE s.category_id
WITH c, count(s) AS moved
DETACH DELETE c
RETURN moved
