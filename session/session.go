// Package session defines the Session record, its lifecycle state machine and its validation rules;
// it is pure Go, with no storage or transport.
package session

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits copied from the original model's validations.
const (
	MaxTitle              = 100
	MaxPrompt             = 500_000
	MaxGoal               = 50_000
	MaxNotes              = 50_000
	MaxPrecedence         = 1_000_000_000
	MinHeartbeatInterval  = 30
	MaxHeartbeatInterval  = 86_400
	MaxAutoCompactWindow  = 1_000_000
	MaxMCPServers         = 50
	MaxSkills             = 100
	MaxHooks              = 100
	MaxPlugins            = 50
	MaxIdempotencyKey     = 255
	MaxSlug               = 150
	DefaultBranch         = "main"
	DefaultRuntime        = "claude_code"
	LocalFilesystem       = "local_filesystem"
	DefaultHeartbeat      = 60
	TrashRetention        = 4 * 24 * time.Hour
	slugCollisionAttempts = 10
)

// Session is one task: one agent process, one git clone. Nullable columns are pointers.
type Session struct {
	ID                       int64
	Slug                     *string
	Title                    *string
	Status                   Status
	AgentRuntime             string
	Prompt                   *string
	GitRoot                  string
	Branch                   string
	Subdirectory             *string
	ExecutionProvider        string
	Goal                     *string
	MCPServers               []string
	CatalogSkills            []string
	CatalogHooks             []string
	CatalogPlugins           []string
	Config                   map[string]any
	Metadata                 map[string]any
	CustomMetadata           map[string]any
	IsAutonomous             bool
	Favorited                bool
	PushNotificationsEnabled bool
	HeartbeatEnabled         bool
	HeartbeatInterval        int64
	HeartbeatLastBeatAt      *time.Time
	AutoCompactWindow        int64
	Genesis                  Genesis
	// GenesisClass is the class Genesis derives under the deployment's overrides, set whenever
	// the session is read (never stored, so changing an override moves every deriving
	// session); empty means the genesis default.
	GenesisClass          Class
	SchedulingClass       *Class
	Precedence            int64
	ParentSessionID       *int64
	CategoryID            *int64
	RuntimeSessionID      *string // the runtime's conversation id ("session_id" on the wire)
	JobID                 *string
	RunningJobID          *string
	Visibility            string
	IdempotencyKey        *string
	SessionNotes          *string
	SessionNotesUpdatedAt *time.Time
	ArchivedAt            *time.Time
	TrashAfter            *time.Time
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// PriorityClass is the scheduling class in force: the explicit one, else the one its genesis
// derives.
func (s *Session) PriorityClass() Class {
	if s.SchedulingClass != nil {
		return *s.SchedulingClass
	}
	if s.GenesisClass.Valid() {
		return s.GenesisClass
	}
	return s.Genesis.DefaultClass()
}

// DisplayTitle is the title, or "Session <id>" when none is set.
func (s *Session) DisplayTitle() string {
	if s.Title != nil && *s.Title != "" {
		return *s.Title
	}
	return "Session " + strconv.FormatInt(s.ID, 10)
}

// InjectedMCPServers are the servers Zimmer itself added at prepare time.
func (s *Session) InjectedMCPServers() []string {
	return stringList(s.CustomMetadata[CustomInjectedMCPServers])
}

// AllMCPServers is the effective set a runtime sees: selected ∪ injected, deduplicated, in order.
func (s *Session) AllMCPServers() []string {
	seen := map[string]bool{}
	all := []string{}
	for _, name := range append(append([]string{}, s.MCPServers...), s.InjectedMCPServers()...) {
		if !seen[name] {
			seen[name] = true
			all = append(all, name)
		}
	}
	return all
}

// LineageParentID is the spawn parent: the column first, custom_metadata.router_session_id as fallback.
func (s *Session) LineageParentID() (int64, bool) {
	if s.ParentSessionID != nil {
		return *s.ParentSessionID, true
	}
	return RouterSessionID(s.CustomMetadata)
}

// RouterSessionID reads the legacy spawn edge from custom_metadata; it accepts a number or digits.
func RouterSessionID(customMetadata map[string]any) (int64, bool) {
	switch v := customMetadata[CustomRouterSessionID].(type) {
	case float64:
		if v > 0 && v == float64(int64(v)) {
			return int64(v), true
		}
	case int64:
		return v, v > 0
	case string:
		if id, ok := ParseID(v); ok {
			return id, true
		}
	}
	return 0, false
}

var digits = regexp.MustCompile(`^[0-9]{1,18}$`)

// AllDigits reports whether s (spaces aside) is a non-empty run of digits: the shape of an id,
// which is why no slug may have it.
func AllDigits(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// ParseID accepts a decimal session id (digits only, positive).
func ParseID(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if !digits.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// SlugBase derives `<parameterized-title>-<YYYYMMDD-HHMM>` from a title and a creation time.
func SlugBase(title string, created time.Time) string {
	p := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(p) > 80 {
		p = strings.TrimRight(p[:80], "-")
	}
	stamp := created.UTC().Format("20060102-1504")
	if p == "" {
		return stamp
	}
	return p + "-" + stamp
}

// SlugCandidates lists the slugs tried in order on collision: base, base-1, … base-9.
func SlugCandidates(base string) []string {
	out := []string{base}
	for i := 1; i < slugCollisionAttempts; i++ {
		out = append(out, base+"-"+strconv.Itoa(i))
	}
	return out
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := []string{}
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// urlCredentials is the userinfo of any URL in a text: https://user:token@host, or a bare token@.
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s]+@`)

// RedactCredentials hides the credentials of every URL in text (a git_root may embed a token),
// for anything shown or logged: failure messages, the timeline, API responses.
func RedactCredentials(text string) string {
	if !strings.Contains(text, "@") { // every credential ends with one; most texts have none
		return text
	}
	return urlCredentials.ReplaceAllString(text, "${1}***@")
}
