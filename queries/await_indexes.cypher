// AwaitIndexes: wait (up to 60 s) until every index is online, so the first queries after a
// migration use them. Params: none. Returns: nothing.
CALL db.awaitIndexes(60)
