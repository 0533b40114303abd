// Ping: the cheapest statement that proves the database answers.
// Params: none. Returns: one row {ok: 1}.
RETURN 1 AS ok
