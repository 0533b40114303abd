// ImportSessions: bulk-create sessions with minimal properties (synthetic fleets for benchmarks).
// Ids are the caller's; the session counter is moved past the highest. No lineage edges here.
// Params: $rows (list of {id, title, status, genesis, agent_root_key, parent_session_id}), $at.
// Returns: one row {created}.
UNWIND $rows AS row
CREATE (s:Session {id: row.id, title: row.title, status: row.status, genesis: row.genesis,
  agent_root_key: row.agent_root_key, parent_session_id: row.parent_session_id,
  agent_runtime: 'claude_code', git_root: 'file:///bench', branch: 'main',
  execution_provider: 'local_filesystem', visibility: 'visible', config: '{"model":"opus"}',
  metadata: '{}', custom_metadata: '{}', mcp_servers: [], catalog_skills: [], catalog_hooks: [],
  catalog_plugins: [], is_autonomous: true, favorited: false, push_notifications_enabled: false,
  heartbeat_enabled: false, heartbeat_interval_seconds: 60, auto_compact_window: 1000000,
  precedence: 0, created_at: $at, updated_at: $at})
WITH count(s) AS created
MATCH (c:Counter {name: 'session'})
CALL (c) { WITH c WHERE c.value < $max_id SET c.value = $max_id }
RETURN created
