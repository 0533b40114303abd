package trigger

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/zimmerhq/zimmer/session"
)

// Burst is the cap's tumbling one-minute window (only new-session spawns count).
type Burst struct {
	WindowStartedAt *time.Time
	WindowCount     int64
	SessionIDs      []int64 // spawned this window, at most MaxBurstSessionIDs
	ActiveUntil     *time.Time
	Suppressed      int64 // fires the cap suppressed, over the trigger's life
}

// Burst tuning: the window, how long a tripped cap suppresses, how many spawns a notice links.
const (
	BurstWindow        = time.Minute
	BurstCooldown      = 5 * time.Minute
	MaxBurstSessionIDs = 25
)

// SpawnDecision is what the burst cap allows one fire that would spawn a session.
type SpawnDecision string

// The three decisions.
const (
	SpawnAllowed    SpawnDecision = "spawn"
	SpawnNotice     SpawnDecision = "burst_notice" // this fire tipped the cap: one notice session instead
	SpawnSuppressed SpawnDecision = "suppressed"   // a burst is open: nothing is spawned
)

// CountSpawn counts one spawning fire against the cap and decides it; the caller stores the
// trigger afterwards, under its lock.
func (t *Trigger) CountSpawn(now time.Time) SpawnDecision {
	if t.MaxSessionsPerMinute == nil {
		return SpawnAllowed
	}
	b := &t.Burst
	if b.WindowStartedAt == nil || !now.Before(b.WindowStartedAt.Add(BurstWindow)) {
		start := now
		b.WindowStartedAt, b.WindowCount, b.SessionIDs = &start, 0, nil
	}
	b.WindowCount++
	if t.Bursting(now) {
		b.Suppressed++
		return SpawnSuppressed
	}
	if b.WindowCount > *t.MaxSessionsPerMinute {
		until := now.Add(BurstCooldown)
		b.ActiveUntil = &until
		return SpawnNotice
	}
	return SpawnAllowed
}

// RecordSpawn remembers a session spawned in the current window.
func (t *Trigger) RecordSpawn(id int64) {
	if len(t.Burst.SessionIDs) < MaxBurstSessionIDs {
		t.Burst.SessionIDs = append(t.Burst.SessionIDs, id)
	}
}

// Bursting: the cap tripped and is still suppressing.
func (t *Trigger) Bursting(now time.Time) bool {
	return t.Burst.ActiveUntil != nil && now.Before(*t.Burst.ActiveUntil)
}

// ResetBurst forgets the window (re-saving the cap clears it).
func (t *Trigger) ResetBurst() { t.Burst = Burst{Suppressed: t.Burst.Suppressed} }

// Variables are the placeholders a caller may fill; {{time}} and {{date}} fill themselves.
var Variables = []string{"link", "text", "author", "channel", "event", "repo", "number", "title", "labels"}

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z_]+)\s*\}\}`)

// KnownVariables keeps the recognised keys of vars and renders each value as text (a list is
// joined with ", "); the rest are dropped.
func KnownVariables(vars map[string]any) map[string]string {
	out := map[string]string{}
	for _, k := range Variables {
		switch v := vars[k].(type) {
		case nil:
		case string:
			out[k] = v
		case []any:
			parts := make([]string, 0, len(v))
			for _, p := range v {
				parts = append(parts, fmt.Sprint(p))
			}
			out[k] = strings.Join(parts, ", ")
		case []string:
			out[k] = strings.Join(v, ", ")
		default:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// Render fills a template's {{placeholders}}: the variables given, {{time}} (HH:MM) and
// {{date}} (YYYY-MM-DD) at now in UTC; any other placeholder becomes "".
func Render(template string, vars map[string]string, now time.Time) string {
	return placeholder.ReplaceAllStringFunc(template, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		switch name {
		case "time":
			return now.UTC().Format("15:04")
		case "date":
			return now.UTC().Format("2006-01-02")
		}
		return vars[name]
	})
}

// Slack event types a slack condition may listen for.
var slackEventTypes = []string{"new_message", "bot_mention", "dm_message", "passive_listen_thread", "passive_listen_channel", "passive_listen"}

var (
	repoFormat  = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	clockFormat = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	weekdays    = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
	units       = []string{"minutes", "hours", "days", "weeks"}
)

// MaxRepos bounds a GitHub condition's repository list.
const MaxRepos = 20

// ValidateCondition lists what is wrong with one condition's configuration.
func ValidateCondition(c Condition) []string {
	var bad []string
	add := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	switch c.Type {
	case TypeSlack:
		if et := c.Str("event_type"); et != "" && !slices.Contains(slackEventTypes, et) {
			add("slack event_type must be one of %s", strings.Join(slackEventTypes, ", "))
		}
		if c.Str("channel_id") == "" && c.Str("event_type") != "dm_message" {
			add("slack condition needs a channel_id")
		}
	case TypeSchedule:
		bad = append(bad, validateSchedule(c)...)
	case TypeAOEvent:
		if !slices.Contains(Events, c.EventName()) {
			add("ao_event event_name must be one of %s", strings.Join(Events, ", "))
		}
		if _, ok := c.Config["watched_session_id"]; ok && c.WatchedSessionID() < 1 {
			add("ao_event watched_session_id must be a positive integer")
		}
	case TypeGitHubLabel, TypeGitHubIssue:
		repos := c.Strings("repos")
		if len(repos) == 0 || len(repos) > MaxRepos {
			add("%s needs 1 to %d repos (owner/name)", c.Type, MaxRepos)
		}
		for _, r := range repos {
			if !repoFormat.MatchString(r) {
				add("%s repo %q is not owner/name", c.Type, r)
			}
		}
		if c.Type == TypeGitHubLabel {
			if len(c.Strings("labels")) == 0 {
				add("github_label needs at least one label")
			}
			if t := c.Str("target"); t != "" && t != "pull_request" && t != "issue" {
				add("github_label target must be pull_request or issue")
			}
		}
	case TypeSystemEvent:
		if c.EventName() != SystemQuotaAvailable {
			add("system_event event_name must be %s", SystemQuotaAvailable)
		}
	default:
		add("unknown trigger_type %q (one of %s)", c.Type, typeNames())
	}
	return bad
}

func typeNames() string {
	names := make([]string, len(Types))
	for i, t := range Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

func validateSchedule(c Condition) []string {
	var bad []string
	loc, err := Location(c.Str("timezone"))
	if err != nil {
		bad = append(bad, err.Error())
	}
	switch {
	case c.Str("scheduled_at") != "":
		if loc != nil {
			if _, err := ParseLocal(c.Str("scheduled_at"), loc); err != nil {
				bad = append(bad, "schedule scheduled_at: "+err.Error())
			}
		}
	case c.Str("cron") != "":
		if _, err := cron.ParseStandard(c.Str("cron")); err != nil {
			bad = append(bad, fmt.Sprintf("schedule cron %q: %v", c.Str("cron"), err))
		}
	default:
		if u := c.Str("unit"); !slices.Contains(units, u) {
			bad = append(bad, "schedule needs scheduled_at (one time), cron, or unit (minutes, hours, days, weeks)")
		}
		if _, ok := c.Config["interval"]; ok && session.BagInt(c.Config, "interval") < 1 {
			bad = append(bad, "schedule interval must be a positive integer")
		}
		if t := c.Str("time"); t != "" && !clockFormat.MatchString(t) {
			bad = append(bad, "schedule time must be HH:MM")
		}
		if d := c.Str("day_of_week"); d != "" && !slices.Contains(weekdays, strings.ToLower(d)) {
			bad = append(bad, "schedule day_of_week must be a weekday name (monday … sunday)")
		}
	}
	return bad
}

// Location resolves an IANA zone name; "" is UTC.
func Location(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("%q is not a recognized IANA timezone name", name)
	}
	return loc, nil
}

var naiveISO = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?$`)

// ParseLocal reads a naive ISO-8601 datetime (no offset) as wall-clock time in loc.
func ParseLocal(s string, loc *time.Location) (time.Time, error) {
	if !naiveISO.MatchString(s) {
		return time.Time{}, fmt.Errorf(`must be an ISO-8601 datetime like "2026-04-15T14:30:00" (date-only and other formats are not accepted)`)
	}
	s = strings.TrimSuffix(s, "Z")
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a valid date and time", s)
}

// Due says whether a schedule condition should fire at now; created is when its trigger was
// made (the base of a cron schedule that never fired). A zone that does not resolve is never due.
func Due(c Condition, created, now time.Time) bool {
	loc, err := Location(c.Str("timezone"))
	if c.Type != TypeSchedule || err != nil {
		return false
	}
	last := c.LastTriggeredAt
	if at := c.Str("scheduled_at"); at != "" {
		when, err := ParseLocal(at, loc)
		return err == nil && last == nil && !now.Before(when)
	}
	if expr := c.Str("cron"); expr != "" {
		sched, err := cron.ParseStandard(expr)
		if err != nil {
			return false
		}
		base := created
		if last != nil {
			base = *last
		}
		return !now.Before(sched.Next(base.In(loc)))
	}
	interval := max(session.BagInt(c.Config, "interval"), 1)
	local := now.In(loc)
	switch c.Str("unit") {
	case "minutes", "hours":
		step := time.Duration(interval) * time.Minute
		if c.Str("unit") == "hours" {
			step = time.Duration(interval) * time.Hour
		}
		return last == nil || !now.Before(last.Add(step))
	case "days", "weeks":
		if c.Str("unit") == "weeks" && !strings.EqualFold(c.Str("day_of_week"), weekdays[local.Weekday()]) && c.Str("day_of_week") != "" {
			return false
		}
		if !pastTimeOfDay(c.Str("time"), local) {
			return false
		}
		days := interval
		if c.Str("unit") == "weeks" {
			days = 7 * interval
		}
		return last == nil || daysBetween(last.In(loc), local) >= days
	}
	return false
}

func pastTimeOfDay(hhmm string, local time.Time) bool {
	if hhmm == "" {
		return true
	}
	h, _ := strconv.Atoi(hhmm[:2])
	m, _ := strconv.Atoi(hhmm[3:])
	return local.Hour()*60+local.Minute() >= h*60+m
}

func daysBetween(a, b time.Time) int {
	da := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	db := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(db.Sub(da).Hours() / 24)
}

// Validate lists what is wrong with a whole trigger.
func Validate(t *Trigger) []string {
	var bad []string
	if strings.TrimSpace(t.Name) == "" {
		bad = append(bad, "Name can't be blank")
	}
	if strings.TrimSpace(t.AgentRootName) == "" {
		bad = append(bad, "Agent root name can't be blank")
	}
	if strings.TrimSpace(t.PromptTemplate) == "" {
		bad = append(bad, "Prompt template can't be blank")
	}
	if !slices.Contains(Statuses, t.Status) {
		bad = append(bad, "Status must be enabled, disabled or failed")
	}
	if len(t.Conditions) == 0 {
		bad = append(bad, "A trigger needs at least one condition")
	}
	for _, c := range t.Conditions {
		bad = append(bad, ValidateCondition(c)...)
	}
	if !t.ReuseSession && (t.EnqueueMessages || t.ResuscitateArchived) {
		bad = append(bad, "enqueue_messages and resuscitate_archived require reuse_session")
	}
	if !t.ReuseSession && t.LastSessionID != nil {
		bad = append(bad, "A target session (last_session_id) requires reuse_session")
	}
	for _, c := range t.Conditions {
		if t.LastSessionID != nil && c.Type == TypeAOEvent && c.WatchedSessionID() == *t.LastSessionID {
			bad = append(bad, fmt.Sprintf("An ao_event condition may not watch its own requester (session %d)", *t.LastSessionID))
		}
	}
	if t.MaxSessionsPerMinute != nil && *t.MaxSessionsPerMinute < 1 {
		bad = append(bad, "max_sessions_per_minute must be at least 1")
	}
	if t.SchedulingClass != nil && !session.Class(*t.SchedulingClass).Valid() {
		bad = append(bad, "scheduling_class must be spot or priority")
	}
	return bad
}
