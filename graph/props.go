package graph

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// sessionProps flattens a Session into node properties. JSON bags are stored as canonical JSON
// strings; nil pointers are left out so that SET s = $props stores them as absent (null).
func sessionProps(s *session.Session) (map[string]any, error) {
	p := map[string]any{
		"id":                         s.ID,
		"status":                     string(s.Status),
		"agent_runtime":              s.AgentRuntime,
		"git_root":                   s.GitRoot,
		"branch":                     s.Branch,
		"execution_provider":         s.ExecutionProvider,
		"mcp_servers":                nonNil(s.MCPServers),
		"catalog_skills":             nonNil(s.CatalogSkills),
		"catalog_hooks":              nonNil(s.CatalogHooks),
		"catalog_plugins":            nonNil(s.CatalogPlugins),
		"is_autonomous":              s.IsAutonomous,
		"favorited":                  s.Favorited,
		"push_notifications_enabled": s.PushNotificationsEnabled,
		"heartbeat_enabled":          s.HeartbeatEnabled,
		"heartbeat_interval_seconds": s.HeartbeatInterval,
		"auto_compact_window":        s.AutoCompactWindow,
		"genesis":                    string(s.Genesis),
		"precedence":                 s.Precedence,
		"visibility":                 s.Visibility,
		"created_at":                 s.CreatedAt.UTC(),
		"updated_at":                 s.UpdatedAt.UTC(),
	}
	for key, bag := range map[string]map[string]any{"config": s.Config, "metadata": s.Metadata, "custom_metadata": s.CustomMetadata} {
		b, err := json.Marshal(nonNilMap(bag))
		if err != nil {
			return nil, fmt.Errorf("encode %s of session %d: %w", key, s.ID, err)
		}
		p[key] = string(b)
	}
	optional := map[string]any{
		"slug": s.Slug, "title": s.Title, "prompt": s.Prompt, "subdirectory": s.Subdirectory, "goal": s.Goal,
		"session_id": s.RuntimeSessionID, "job_id": s.JobID, "running_job_id": s.RunningJobID,
		"idempotency_key": s.IdempotencyKey, "session_notes": s.SessionNotes,
		"parent_session_id": s.ParentSessionID, "category_id": s.CategoryID,
		"session_notes_updated_at": s.SessionNotesUpdatedAt, "archived_at": s.ArchivedAt,
		"trash_after": s.TrashAfter, "heartbeat_last_beat_at": s.HeartbeatLastBeatAt,
	}
	for k, v := range optional {
		if v := deref(v); v != nil {
			p[k] = v
		}
	}
	if s.SchedulingClass != nil {
		p["scheduling_class"] = string(*s.SchedulingClass)
	}
	// Indexed copies of JSON keys the lineage and root lookups need.
	if id, ok := session.RouterSessionID(s.CustomMetadata); ok {
		p["router_session_id"] = id
	}
	if root := s.AgentRoot(); root != "" {
		p["agent_root_key"] = root
	}
	if by := s.PausedBy(); by != "" {
		p["paused_by"] = by // the orphan sweep finds sessions parked for recovery by it
	}
	if at := session.BagString(s.Metadata, session.MetaSpotQueuedAt); at != "" {
		p["spot_queued_at"] = at // the spot scheduler resumes parked sessions oldest first by it
	}
	if why := session.BagString(s.Metadata, session.MetaSpotHoldReason); why != "" {
		p["spot_hold_reason"] = why // the ranked queue and the held-sessions gauge find holds by it
	}
	if host := session.BagString(s.Metadata, session.MetaProcessHost); host != "" && session.BagInt(s.Metadata, session.MetaProcessPID) != 0 {
		p["process_host"] = host // cleanup_processes finds agents left behind on a host by it
	}
	if channel, thread := session.SlackThread(s.CustomMetadata); channel != "" {
		p["slack_channel_id"] = channel
		if thread != "" {
			p["slack_thread_ts"] = thread
		}
	}
	return p, nil
}

func deref(v any) any {
	switch x := v.(type) {
	case *string:
		if x != nil {
			return *x
		}
	case *int64:
		if x != nil {
			return *x
		}
	case *time.Time:
		if x != nil {
			return x.UTC()
		}
	}
	return nil
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// nodeSession reads a Session back from a node's properties; its GenesisClass is left to the
// transaction that read it (txn.sessionOf).
func nodeSession(p map[string]any) (*session.Session, error) {
	s := &session.Session{
		ID:                       asInt(p["id"]),
		Status:                   session.Status(asString(p["status"])),
		AgentRuntime:             asString(p["agent_runtime"]),
		GitRoot:                  asString(p["git_root"]),
		Branch:                   asString(p["branch"]),
		ExecutionProvider:        asString(p["execution_provider"]),
		MCPServers:               asStrings(p["mcp_servers"]),
		CatalogSkills:            asStrings(p["catalog_skills"]),
		CatalogHooks:             asStrings(p["catalog_hooks"]),
		CatalogPlugins:           asStrings(p["catalog_plugins"]),
		IsAutonomous:             asBool(p["is_autonomous"]),
		Favorited:                asBool(p["favorited"]),
		PushNotificationsEnabled: asBool(p["push_notifications_enabled"]),
		HeartbeatEnabled:         asBool(p["heartbeat_enabled"]),
		HeartbeatInterval:        asInt(p["heartbeat_interval_seconds"]),
		AutoCompactWindow:        asInt(p["auto_compact_window"]),
		Genesis:                  session.Genesis(asString(p["genesis"])),
		Precedence:               asInt(p["precedence"]),
		Visibility:               asString(p["visibility"]),
		CreatedAt:                asTime(p["created_at"]),
		UpdatedAt:                asTime(p["updated_at"]),
		Slug:                     optString(p["slug"]),
		Title:                    optString(p["title"]),
		Prompt:                   optString(p["prompt"]),
		Subdirectory:             optString(p["subdirectory"]),
		Goal:                     optString(p["goal"]),
		RuntimeSessionID:         optString(p["session_id"]),
		JobID:                    optString(p["job_id"]),
		RunningJobID:             optString(p["running_job_id"]),
		IdempotencyKey:           optString(p["idempotency_key"]),
		SessionNotes:             optString(p["session_notes"]),
		ParentSessionID:          optInt(p["parent_session_id"]),
		CategoryID:               optInt(p["category_id"]),
		SessionNotesUpdatedAt:    optTime(p["session_notes_updated_at"]),
		ArchivedAt:               optTime(p["archived_at"]),
		TrashAfter:               optTime(p["trash_after"]),
		HeartbeatLastBeatAt:      optTime(p["heartbeat_last_beat_at"]),
	}
	if c, ok := p["scheduling_class"].(string); ok {
		class := session.Class(c)
		s.SchedulingClass = &class
	}
	for key, into := range map[string]*map[string]any{"config": &s.Config, "metadata": &s.Metadata, "custom_metadata": &s.CustomMetadata} {
		raw, _ := p[key].(string)
		if raw == "" {
			raw = "{}"
		}
		if err := json.Unmarshal([]byte(raw), into); err != nil {
			return nil, fmt.Errorf("decode %s of session %d: %w", key, s.ID, err)
		}
	}
	return s, nil
}

func asString(v any) string  { s, _ := v.(string); return s }
func asBool(v any) bool      { b, _ := v.(bool); return b }
func asInt(v any) int64      { n, _ := v.(int64); return n }
func asBytes(v any) []byte   { b, _ := v.([]byte); return b }
func asTime(v any) time.Time { t, _ := v.(time.Time); return t.UTC() }

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func optString(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

func optInt(v any) *int64 {
	if n, ok := v.(int64); ok {
		return &n
	}
	return nil
}

func optTime(v any) *time.Time {
	if t, ok := v.(time.Time); ok {
		t = t.UTC()
		return &t
	}
	return nil
}
