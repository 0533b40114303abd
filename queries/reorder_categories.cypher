// ReorderCategories: give the listed categories positions 1..n in the order given; categories
// not listed keep theirs. Params: $ids (list of category ids). Returns: rows {id} of those moved.
UNWIND range(0, size($ids) - 1) AS i
MATCH (c:Category {id: $ids[i]})
SET c.position = i + 1
RETURN c.id AS id
