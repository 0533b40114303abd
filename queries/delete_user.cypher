// DeleteUser: remove one roster row. Human messages keep the author key verbatim (not a
// relationship), so they survive and still render. Params: $key. Returns: one row {deleted}.
OPTIONAL MATCH (u:User {key: $key})
DELETE u
RETURN count(u) AS deleted
