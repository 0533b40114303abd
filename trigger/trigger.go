// Package trigger is the trigger record and its rules (pure Go): a session template plus one or
// more conditions, any of which fires it. It validates conditions, decides when a schedule is
// due, renders prompt templates and keeps the burst cap's window.
package trigger

import (
	"slices"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// Status is whether a trigger fires.
type Status string

// The three statuses; failed is Zimmer's to set (a one-time fire that raised).
const (
	StatusEnabled  Status = "enabled"
	StatusDisabled Status = "disabled"
	StatusFailed   Status = "failed"
)

// Statuses lists every status.
var Statuses = []Status{StatusEnabled, StatusDisabled, StatusFailed}

// Type is a condition's kind.
type Type string

// Condition types.
const (
	TypeSlack       Type = "slack"
	TypeSchedule    Type = "schedule"
	TypeAOEvent     Type = "ao_event"
	TypeGitHubLabel Type = "github_label"
	TypeGitHubIssue Type = "github_issue"
	TypeSystemEvent Type = "system_event"
)

// Types lists every condition type.
var Types = []Type{TypeSlack, TypeSchedule, TypeAOEvent, TypeGitHubLabel, TypeGitHubIssue, TypeSystemEvent}

// Valid reports whether t is a known condition type.
func (t Type) Valid() bool { return slices.Contains(Types, t) }

// Session events an ao_event condition listens for.
const (
	EventNeedsInput = "session_needs_input"
	EventFailed     = "session_failed"
	EventArchived   = "session_archived"
)

// Events lists the ao_event events.
var Events = []string{EventNeedsInput, EventFailed, EventArchived}

// EventOf is the ao_event a lifecycle event raises ("" for none).
func EventOf(ev session.Event) string {
	switch ev {
	case session.EventPause, session.EventBlockOnElicitation:
		return EventNeedsInput
	case session.EventFail:
		return EventFailed
	case session.EventArchive:
		return EventArchived
	}
	return ""
}

// SystemQuotaAvailable is the one system_event.
const SystemQuotaAvailable = "quota_available"

// Condition is one way a trigger fires.
type Condition struct {
	ID              int64
	Type            Type
	Config          map[string]any
	LastTriggeredAt *time.Time
	LastPolledAt    *time.Time
}

// Str reads a string setting; "" when absent.
func (c Condition) Str(key string) string { return session.BagString(c.Config, key) }

// Strings reads a list-of-strings setting.
func (c Condition) Strings(key string) []string {
	raw, _ := c.Config[key].([]any)
	var out []string
	for _, v := range raw {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	if list, ok := c.Config[key].([]string); ok {
		out = append(out, list...)
	}
	return out
}

// EventName is an ao_event or system_event condition's event.
func (c Condition) EventName() string { return c.Str("event_name") }

// WatchedSessionID is the session a scoped ao_event condition watches; 0 when it is broadcast.
func (c Condition) WatchedSessionID() int64 {
	return int64(session.BagInt(c.Config, "watched_session_id"))
}

// OneShot: a one-time schedule or a session-scoped ao_event, spent by its first fire.
func (c Condition) OneShot() bool {
	switch c.Type {
	case TypeSchedule:
		return c.Str("scheduled_at") != ""
	case TypeAOEvent:
		return c.WatchedSessionID() != 0
	}
	return false
}

// Spent: a one-shot condition that already fired.
func (c Condition) Spent() bool { return c.OneShot() && c.LastTriggeredAt != nil }

// Trigger is a session template and its conditions.
type Trigger struct {
	ID                   int64
	Name                 string
	Status               Status
	FailedAt             *time.Time
	LastError            string
	AgentRootName        string
	PromptTemplate       string
	Goal                 *string
	ReuseSession         bool
	EnqueueMessages      bool
	ResuscitateArchived  bool
	LastSessionID        *int64
	MaxSessionsPerMinute *int64
	SchedulingClass      *string
	Precedence           *int64
	MCPServers           []string
	CatalogSkills        []string
	CatalogHooks         []string
	CatalogPlugins       []string
	SessionsCreatedCount int64
	LastTriggeredAt      *time.Time
	Burst                Burst
	CreatedAt, UpdatedAt time.Time
	Conditions           []Condition
}

// OneTime: a wake — a reuse trigger every condition of which is one-shot (what the wake tools
// create). Its first delivered fire consumes it and its siblings.
func (t *Trigger) OneTime() bool {
	if !t.ReuseSession || len(t.Conditions) == 0 {
		return false
	}
	for _, c := range t.Conditions {
		if !c.OneShot() {
			return false
		}
	}
	return true
}

// Condition finds a condition by id.
func (t *Trigger) Condition(id int64) (*Condition, bool) {
	for i := range t.Conditions {
		if t.Conditions[i].ID == id {
			return &t.Conditions[i], true
		}
	}
	return nil, false
}

// genesisOrder: a trigger of mixed condition types takes the first of these it has.
var genesisOrder = []struct {
	t Type
	g session.Genesis
}{{TypeSlack, session.GenesisSlack}, {TypeSystemEvent, session.GenesisSystemEvent}, {TypeGitHubLabel, session.GenesisGitHubLabel},
	{TypeGitHubIssue, session.GenesisGitHubIssue}, {TypeAOEvent, session.GenesisAOEvent}, {TypeSchedule, session.GenesisSchedule}}

// Genesis is what the sessions a trigger spawns are stamped with.
func (t *Trigger) Genesis() session.Genesis {
	for _, o := range genesisOrder {
		for _, c := range t.Conditions {
			if c.Type == o.t {
				return o.g
			}
		}
	}
	return session.GenesisUnknown
}

// EffectiveClass is the scheduling class its sessions run in: its own, else its genesis's.
func (t *Trigger) EffectiveClass() session.Class {
	if t.SchedulingClass != nil {
		return session.Class(*t.SchedulingClass)
	}
	return t.Genesis().DefaultClass()
}

// Toggle flips enabled and disabled; a failed trigger is re-armed (enabled, failure cleared).
func (t *Trigger) Toggle() {
	if t.Status == StatusEnabled {
		t.Status = StatusDisabled
		return
	}
	t.Status, t.FailedAt, t.LastError = StatusEnabled, nil, ""
}
