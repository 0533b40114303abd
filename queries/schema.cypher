// Schema: every constraint and index Zimmer needs, one statement per entry, each idempotent.
// Params: none. Run one statement at a time (schema commands cannot share a transaction).
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT session_slug IF NOT EXISTS FOR (s:Session) REQUIRE s.slug IS UNIQUE;
CREATE CONSTRAINT session_idempotency_key IF NOT EXISTS FOR (s:Session) REQUIRE s.idempotency_key IS UNIQUE;
CREATE CONSTRAINT session_runtime_session_id IF NOT EXISTS FOR (s:Session) REQUIRE s.session_id IS UNIQUE;
CREATE CONSTRAINT counter_name IF NOT EXISTS FOR (c:Counter) REQUIRE c.name IS UNIQUE;
CREATE CONSTRAINT graph_lock_scope IF NOT EXISTS FOR (l:GraphLock) REQUIRE l.scope IS UNIQUE;
CREATE CONSTRAINT enqueued_message_id IF NOT EXISTS FOR (m:EnqueuedMessage) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT user_key IF NOT EXISTS FOR (u:User) REQUIRE u.key IS UNIQUE;
CREATE CONSTRAINT user_email IF NOT EXISTS FOR (u:User) REQUIRE u.email IS UNIQUE;
CREATE CONSTRAINT category_id IF NOT EXISTS FOR (c:Category) REQUIRE c.id IS UNIQUE;
CREATE CONSTRAINT app_setting_name IF NOT EXISTS FOR (a:AppSetting) REQUIRE a.name IS UNIQUE;
CREATE CONSTRAINT token_usage_request_id IF NOT EXISTS FOR (u:TokenUsage) REQUIRE u.request_id IS UNIQUE;
CREATE CONSTRAINT slack_event_id IF NOT EXISTS FOR (e:SlackEvent) REQUIRE e.event_id IS UNIQUE;
CREATE INDEX session_status IF NOT EXISTS FOR (s:Session) ON (s.status);
CREATE INDEX session_created_at IF NOT EXISTS FOR (s:Session) ON (s.created_at);
CREATE INDEX session_updated_at IF NOT EXISTS FOR (s:Session) ON (s.updated_at);
CREATE INDEX enqueued_message_updated_at IF NOT EXISTS FOR (m:EnqueuedMessage) ON (m.updated_at);
CREATE INDEX session_genesis IF NOT EXISTS FOR (s:Session) ON (s.genesis);
CREATE INDEX session_agent_runtime IF NOT EXISTS FOR (s:Session) ON (s.agent_runtime);
CREATE INDEX session_parent IF NOT EXISTS FOR (s:Session) ON (s.parent_session_id);
CREATE INDEX session_router IF NOT EXISTS FOR (s:Session) ON (s.router_session_id);
CREATE INDEX session_agent_root_key IF NOT EXISTS FOR (s:Session) ON (s.agent_root_key);
CREATE INDEX session_slack_channel IF NOT EXISTS FOR (s:Session) ON (s.slack_channel_id);
CREATE INDEX session_paused_by IF NOT EXISTS FOR (s:Session) ON (s.paused_by);
CREATE INDEX session_category IF NOT EXISTS FOR (s:Session) ON (s.category_id);
CREATE INDEX slack_event_seen_at IF NOT EXISTS FOR (e:SlackEvent) ON (e.seen_at);
CREATE INDEX enqueued_message_session IF NOT EXISTS FOR (m:EnqueuedMessage) ON (m.session_id, m.status)
