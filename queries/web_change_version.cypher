// WebChangeVersion: a fingerprint of what the web UI's live pages show — sessions (any change
// bumps updated_at), uncle edges, human messages, queued messages and timeline entries. Every
// count comes from the count store and each latest updated_at from its range index
// (session_updated_at, enqueued_message_updated_at), so it costs the same at any fleet size:
// cheap enough to run once a second while a live page is open.
// Params: none. Returns: one row {sessions, updated, uncles, human_messages, queued, queue_updated, logs}.
RETURN COUNT { (:Session) } AS sessions,
       toString(head(COLLECT { MATCH (s:Session) WHERE s.updated_at IS NOT NULL
                               RETURN s.updated_at ORDER BY s.updated_at DESC LIMIT 1 })) AS updated,
       COUNT { ()-[:UNCLE_OF]->() } AS uncles,
       COUNT { (:HumanMessage) } AS human_messages,
       COUNT { (:EnqueuedMessage) } AS queued,
       toString(head(COLLECT { MATCH (m:EnqueuedMessage) WHERE m.updated_at IS NOT NULL
                               RETURN m.updated_at ORDER BY m.updated_at DESC LIMIT 1 })) AS queue_updated,
       COUNT { (:Log) } AS logs
