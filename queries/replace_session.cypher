// ReplaceSession: overwrite every property of a session with $props (absent keys become null).
// Params: $id, $props. Returns: one row {s}.
MATCH (s:Session {id: $id})
SET s = $props
RETURN s
