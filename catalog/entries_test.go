package catalog

import (
	"errors"
	"strings"
	"testing"
)

func TestCatalogFolderNeedsOnlyRootsAndMCP(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "roots.json", `{"a": {"url": "u"}}`)
	write(t, dir, "mcp.json", `{"one": {"command": "node", "default_in_roots": ["a"]}}`)
	c, err := Load(dir)
	if err != nil {
		t.Fatalf("a folder with only the two contract files loads: %v", err)
	}
	builtin, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.DefaultModel("claude_code") != builtin.DefaultModel("claude_code") || len(c.Goals) != len(builtin.Goals) ||
		len(c.Skills) != len(builtin.Skills) {
		t.Fatal("runtimes, goals and skills the folder lacks come from the built-in catalog")
	}
	if _, ok := c.Roots["zimmer"]; ok {
		t.Fatal("roots.json is the folder's own, never the built-in one")
	}
	if len(c.MCPServers) != 1 {
		t.Fatalf("mcp.json is the folder's own: %v", IDs(c.MCPServers))
	}

	for _, missing := range []string{"roots.json", "mcp.json"} {
		d := t.TempDir()
		for _, f := range []string{"roots.json", "mcp.json"} {
			if f != missing {
				write(t, d, f, `{}`)
			}
		}
		if _, err := Load(d); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "read "+missing) {
			t.Errorf("a folder without %s does not load, and says so: %v", missing, err)
		}
	}
}

func TestBadMCPEntriesNameFileEntryAndField(t *testing.T) {
	tests := []struct{ entry, want string }{
		{`"just a string"`, `mcp.json entry "x" is not a JSON object`},
		{`{"type": "grpc", "command": "n"}`, `mcp.json entry "x": field "type" must be one of stdio, sse, streamable-http, http`},
		{`{"command": ["node"]}`, `mcp.json entry "x": field "command" must be a string`},
		{`{"command": "node", "args": "one"}`, `mcp.json entry "x": field "args" must be an array of strings`},
		{`{"command": "node", "args": ["a", 2]}`, `mcp.json entry "x": field "args" must be an array of strings`},
		{`{"command": "node", "env": {"A": 1}}`, `mcp.json entry "x": field "env" must be an object whose values are strings`},
		{`{"url": "https://h", "headers": ["a"]}`, `mcp.json entry "x": field "headers" must be an object whose values are strings`},
		{`{"url": "https://h", "oauth": "yes"}`, `mcp.json entry "x": field "oauth" must be an object`},
		{`{"command": "node", "default_in_roots": "a"}`, `mcp.json entry "x": field "default_in_roots"`},
		{`{"command": "node", "title": 7}`, `mcp.json entry "x": field "title"`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		write(t, dir, "roots.json", `{"a": {"url": "u"}}`)
		write(t, dir, "mcp.json", `{"x": `+tt.entry+`}`)
		_, err := Load(dir)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.entry, err, tt.want)
		}
	}
}

func TestUnavailableIsNormalisedToOneShortLine(t *testing.T) {
	long := strings.Repeat("word ", 60)
	tests := []struct {
		name, value, want string
	}{
		{"a sentence is the reason", `"Accepts only static tokens."`, "Accepts only static tokens."},
		{"whitespace collapses to single spaces", `"  Only\n\tstatic   tokens.\n"`, "Only static tokens."},
		{"cut at 200 characters", `"` + long + `"`, strings.TrimSpace(long[:200])},
		{"blank declares nothing", `"   \n "`, ""},
		{"true declares nothing", `true`, ""},
		{"a number declares nothing", `1`, ""},
		{"null declares nothing", `null`, ""},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		write(t, dir, "roots.json", `{}`)
		write(t, dir, "mcp.json", `{"s": {"command": "n", "unavailable": `+tt.value+`}}`)
		c, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := c.MCPServers["s"].Unavailable; got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	if n := len([]rune(normaliseUnavailable(strings.Repeat("é", 300)))); n != 200 {
		t.Errorf("the limit counts characters, not bytes: %d", n)
	}
}

func TestStartupTimeoutIsAnIntegerFrom5To600OrIgnoredWithAWarning(t *testing.T) {
	tests := []struct {
		value    string
		want     int // 0: refused, reported as null
		warnsLog bool
	}{
		{`20`, 20, false},
		{`5`, 5, false},
		{`600`, 600, false},
		{`4`, 0, true},
		{`601`, 0, true},
		{`"20"`, 0, true},
		{`20.5`, 0, true},
		{`null`, 0, false},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		write(t, dir, "roots.json", `{}`)
		write(t, dir, "mcp.json", `{"s": {"command": "n", "startup_timeout_sec": `+tt.value+`}, "plain": {"command": "n"}}`)
		c, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: a refused budget never fails the catalog: %v", tt.value, err)
		}
		got := c.MCPServers["s"].StartupTimeoutSec
		switch {
		case tt.want == 0 && got != nil:
			t.Errorf("%s: refused, reported as null; got %d", tt.value, *got)
		case tt.want != 0 && (got == nil || *got != tt.want):
			t.Errorf("%s: accepted as %d; got %v", tt.value, tt.want, got)
		}
		warned := len(c.Warnings) == 1 && strings.Contains(c.Warnings[0], `mcp.json entry "s": startup_timeout_sec `+tt.value)
		if warned != tt.warnsLog {
			t.Errorf("%s: warned %v, want %v (%v)", tt.value, warned, tt.warnsLog, c.Warnings)
		}
		if c.MCPServers["plain"].StartupTimeoutSec != nil {
			t.Errorf("absent means the default, reported as null")
		}
	}
}
