package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/trigger"
)

// Rendering shared by search_triggers and action_trigger.

func triggerTypes(t *trigger.Trigger) string {
	seen := map[trigger.Type]int{}
	var order []string
	for _, c := range t.Conditions {
		if seen[c.Type] == 0 {
			order = append(order, string(c.Type))
		}
		seen[c.Type]++
	}
	return fmt.Sprintf("%d (%s)", len(t.Conditions), strings.Join(order, ", "))
}

func capText(t *trigger.Trigger) string {
	if t.MaxSessionsPerMinute == nil {
		return "(no limit)"
	}
	return fmt.Sprint(*t.MaxSessionsPerMinute)
}

func classText(t *trigger.Trigger) string {
	if t.SchedulingClass != nil {
		return *t.SchedulingClass + " (set on this trigger)"
	}
	return string(t.EffectiveClass()) + " (default for its conditions)"
}

// artifactList renders a trigger's catalog list: empty says nothing, so the root's defaults apply.
func artifactList(list []string) string {
	if len(list) == 0 {
		return "(agent root defaults)"
	}
	return strings.Join(list, ", ")
}

// triggerSummary is the body of create/update results.
func triggerSummary(b *doc, t *trigger.Trigger, warnings []string) {
	b.field("ID", t.ID)
	b.field("Name", oneLine(t.Name))
	b.field("Conditions", triggerTypes(t))
	b.field("Status", t.Status)
	b.field("Agent Root", t.AgentRootName)
	b.field("Max Sessions/Minute", capText(t))
	b.field("Scheduling Class", classText(t))
	if t.Precedence != nil {
		b.field("Precedence", *t.Precedence)
	} else {
		b.field("Precedence", "(none predefined)")
	}
	b.field("Reuse Session", t.ReuseSession)
	for _, w := range warnings {
		b.line(w)
	}
	b.blank()
	b.heading(3, "Conditions")
	for _, c := range t.Conditions {
		b.linef("- **[id %d] %s** — %s", c.ID, c.Type, oneLine(trigger.Describe(c)))
	}
}

// maxEchoConfig is the size of configuration JSON printed whole; over it, poller-owned keys
// holding more than maxEchoEntries entries are described instead of printed, and an edit that
// omits them keeps them, so the JSON printed is safe to echo back.
const (
	maxEchoConfig  = 2000
	maxEchoEntries = 10
)

func configJSON(c trigger.Condition) (string, []string) {
	full := prettyJSON(c.Config)
	if len(full) <= maxEchoConfig {
		return full, nil
	}
	shown := map[string]any{}
	var notes []string
	for k, v := range c.Config {
		if n := entries(v); n > maxEchoEntries && isPollerKey(k) {
			notes = append(notes, fmt.Sprintf("- `%s`: %d entries (left out above; an edit that omits it keeps it)", k, n))
			continue
		}
		shown[k] = v
	}
	return prettyJSON(shown), notes
}

func entries(v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case map[string]any:
		return len(x)
	}
	return 0
}

func isPollerKey(k string) bool {
	for _, p := range []string{"channel_timestamps", "thread_timestamps", "bot_activity_timestamps", "participating_threads", "dm_timestamps", "seen_items", "seen_missing_counts", "seen_issue_keys"} {
		if k == p {
			return true
		}
	}
	return false
}

// triggerDetail is search_triggers' by-id view.
func triggerDetail(b *doc, t *trigger.Trigger, now time.Time) {
	b.heading(2, "Trigger: "+oneLine(t.Name))
	b.field("ID", t.ID)
	b.field("Conditions", triggerTypes(t))
	b.field("Status", t.Status)
	b.field("Agent Root", t.AgentRootName)
	b.field("Reuse Session", t.ReuseSession)
	if t.ReuseSession && t.LastSessionID != nil {
		b.field("Target Session", fmt.Sprintf("#%d", *t.LastSessionID))
	}
	cap := capText(t)
	if t.Bursting(now) {
		cap += fmt.Sprintf(" ⚠️ BURSTING — fires are suppressed until %s (%d suppressed so far)", timestamp(*t.Burst.ActiveUntil), t.Burst.Suppressed)
	}
	b.field("Max Sessions/Minute", cap)
	b.field("Scheduling Class", classText(t))
	b.field("MCP Servers", listOrNone(t.MCPServers))
	b.field("Skills", artifactList(t.CatalogSkills))
	b.field("Hooks", artifactList(t.CatalogHooks))
	b.field("Plugins", artifactList(t.CatalogPlugins))
	if t.Goal != nil {
		b.field("Goal", oneLine(*t.Goal))
	}
	if t.Status == trigger.StatusFailed {
		b.field("Failed At", optTimestamp(t.FailedAt))
		b.field("Last Error", oneLine(t.LastError))
		b.line("_Re-arm it with action_trigger toggle (its spent condition fires for real again), or delete it._")
	}
	b.field("Sessions Created", t.SessionsCreatedCount)
	if t.LastTriggeredAt != nil {
		b.field("Last Triggered", timestamp(*t.LastTriggeredAt))
	}
	b.blank()
	b.line("**Prompt Template:**")
	b.fence("", t.PromptTemplate)
	b.blank()
	b.heading(3, "Conditions")
	for _, c := range t.Conditions {
		b.linef("- **[id %d] %s** — %s", c.ID, c.Type, oneLine(trigger.Describe(c)))
		js, notes := configJSON(c)
		b.fence("json", js)
		for _, n := range notes {
			b.line(n)
		}
	}
}

// normalizeJSON turns decoded argument values (json.Number) into what stored JSON reads back
// as (float64), so a configuration validates the same before and after it is stored.
func normalizeJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if dec.Decode(&out) != nil {
		return m
	}
	return out
}
