// InsertCategory: a new category with the next id from the category counter, placed last.
// Params: $name, $name_key, $description (string or null), $is_frozen, $at. Returns: one row {c}.
MATCH (n:Counter {name: 'category'})
SET n.value = n.value + 1
WITH n.value AS id
OPTIONAL MATCH (o:Category)
WITH id, max(o.position) AS last
CREATE (c:Category {id: id, name: $name, name_key: $name_key, description: $description,
                    is_frozen: $is_frozen, position: coalesce(last, 0) + 1, created_at: $at, updated_at: $at})
RETURN c
