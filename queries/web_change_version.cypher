// WebChangeVersion: a fingerprint of what the web UI's live pages show — sessions (any change
// bumps updated_at), uncle edges, human messages, queued messages and timeline entries. Counts
// come from the count store; the two max() reads scan one label each, which is what makes this
// cheap enough to run once a second while a live page is open.
// Params: none. Returns: one row {sessions, updated, uncles, human_messages, queued, queue_updated, logs}.
MATCH (s:Session)
WITH count(s) AS sessions, max(s.updated_at) AS updated
CALL () { MATCH ()-[u:UNCLE_OF]->() RETURN count(u) AS uncles }
CALL () { MATCH (h:HumanMessage) RETURN count(h) AS human_messages }
CALL () { MATCH (m:EnqueuedMessage) RETURN count(m) AS queued, max(m.updated_at) AS queue_updated }
CALL () { MATCH (l:Log) RETURN count(l) AS logs }
RETURN sessions, toString(updated) AS updated, uncles, human_messages, queued, toString(queue_updated) AS queue_updated, logs
