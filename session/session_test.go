package session

import (
	"testing"
	"time"
)

func TestSlugBase(t *testing.T) {
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct{ title, want string }{
		{"Add spot vs. priority classification!", "add-spot-vs-priority-classification-20260506-0708"},
		{"  ---  ", "20260506-0708"},
		{"Ünïcode & CAPS", "n-code-caps-20260506-0708"},
	}
	for _, tt := range tests {
		if got := SlugBase(tt.title, at); got != tt.want {
			t.Errorf("SlugBase(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
	if c := SlugCandidates("x"); len(c) != 10 || c[0] != "x" || c[9] != "x-9" {
		t.Errorf("candidates %v", c)
	}
}

func TestParseIDAcceptsDigitsOnly(t *testing.T) {
	tests := []struct {
		in string
		id int64
		ok bool
	}{{"42", 42, true}, {" 7 ", 7, true}, {"0", 0, false}, {"-3", 0, false}, {"4a", 0, false}, {"", 0, false}, {"1e3", 0, false}}
	for _, tt := range tests {
		if id, ok := ParseID(tt.in); id != tt.id || ok != tt.ok {
			t.Errorf("ParseID(%q) = %d %v, want %d %v", tt.in, id, ok, tt.id, tt.ok)
		}
	}
}

func TestPriorityClassIsExplicitElseTheGenesisDefault(t *testing.T) {
	spot := ClassSpot
	tests := []struct {
		name string
		s    Session
		want Class
	}{
		{"api derives spot", Session{Genesis: GenesisAPI}, ClassSpot},
		{"web_ui derives priority", Session{Genesis: GenesisWebUI}, ClassPriority},
		{"no genesis counts as unknown, priority", Session{}, ClassPriority},
		{"an explicit class wins", Session{Genesis: GenesisWebUI, SchedulingClass: &spot}, ClassSpot},
	}
	for _, tt := range tests {
		if got := tt.s.PriorityClass(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestLineageParentPrefersTheColumnThenRouterSessionID(t *testing.T) {
	p := int64(5)
	tests := []struct {
		name string
		s    Session
		want int64
		ok   bool
	}{
		{"column", Session{ParentSessionID: &p, CustomMetadata: map[string]any{"router_session_id": 9.0}}, 5, true},
		{"numeric router_session_id", Session{CustomMetadata: map[string]any{"router_session_id": 9.0}}, 9, true},
		{"string router_session_id", Session{CustomMetadata: map[string]any{"router_session_id": "11"}}, 11, true},
		{"junk router_session_id", Session{CustomMetadata: map[string]any{"router_session_id": "abc"}}, 0, false},
		{"none", Session{}, 0, false},
	}
	for _, tt := range tests {
		if got, ok := tt.s.LineageParentID(); got != tt.want || ok != tt.ok {
			t.Errorf("%s: %d %v", tt.name, got, ok)
		}
	}
}

func TestAllMCPServersIsSelectedThenInjectedDeduplicated(t *testing.T) {
	s := Session{MCPServers: []string{"a", "zimmer"}, CustomMetadata: map[string]any{"injected_mcp_servers": []any{"zimmer", "zimmer-self-session"}}}
	if got := s.AllMCPServers(); len(got) != 3 || got[2] != "zimmer-self-session" {
		t.Fatalf("got %v", got)
	}
}

func TestRedactCredentialsHidesEveryURLsUserinfo(t *testing.T) {
	tests := map[string]string{
		"https://user:tok3n@github.com/o/r.git":                    "https://***@github.com/o/r.git",
		"fatal: unable to access 'https://ghp_abc@host/r/': 403":   "fatal: unable to access 'https://***@host/r/': 403",
		"git@github.com:o/r.git":                                   "git@github.com:o/r.git",
		"https://github.com/o/r.git (see https://a:b@x.example/y)": "https://github.com/o/r.git (see https://***@x.example/y)",
		"/srv/repos/plain":                                         "/srv/repos/plain",
	}
	for in, want := range tests {
		if got := RedactCredentials(in); got != want {
			t.Errorf("RedactCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAllDigitsIsTheShapeOfAnID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{{"42", true}, {"0", true}, {" 007 ", true}, {"12345678901234567890", true}, {"", false}, {" ", false}, {"42a", false}, {"4-2", false}, {"-42", false}}
	for _, tt := range tests {
		if got := AllDigits(tt.in); got != tt.want {
			t.Errorf("AllDigits(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestASlugDerivedFromATitleIsNeverOnlyDigits(t *testing.T) {
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, title := range []string{"42", "2026", "", "!!!", "1 2 3"} {
		for _, c := range SlugCandidates(SlugBase(title, at)) {
			if AllDigits(c) {
				t.Errorf("title %q derives the slug %q, which reads as an id", title, c)
			}
		}
	}
}
