package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBuiltInCatalogLoads(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Fatalf("the shipped catalog must load cleanly: %v", c.Warnings)
	}
	if got := c.Roots["zimmer"].DefaultMCPServers; !slices.Equal(got, []string{"playwright-custom"}) {
		t.Fatalf("zimmer's default servers come from default_in_roots: %v", got)
	}
	if c.DefaultModel("claude_code") != "opus" || c.DefaultModel("codex") != "gpt-5.6-terra" {
		t.Fatal("runtime default models")
	}
	if !strings.HasPrefix(c.ResolveGoal("codebase-question"), "Answer the question") || c.ResolveGoal("free text") != "free text" {
		t.Fatal("goal ids resolve to descriptions; free text passes through")
	}
}

// write puts text at dir/name, making the folders on the way.
func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultsAreInvertedFromEachArtifact(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "roots.json", `{"a": {"url": "u"}, "b": {"url": "u", "default_in_roots": ["a", "*"]}}`)
	write(t, dir, "runtimes.json", `{"claude_code": {"models": [{"id": "opus", "default": true}]}}`)
	write(t, dir, "mcp.json", `{"$schema": "x", "everywhere": {"default_in_roots": ["*"]}, "only-a": {"default_in_roots": ["a", "ghost"]}}`)
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want []string
	}{
		{"wildcard and named servers reach root a", c.Roots["a"].DefaultMCPServers, []string{"everywhere", "only-a"}},
		{"wildcard reaches root b", c.Roots["b"].DefaultMCPServers, []string{"everywhere"}},
		{"b is a subagent root of a", c.Roots["a"].SubagentRoots, []string{"b"}},
		{"a root is never its own subagent, even by wildcard", c.Roots["b"].SubagentRoots, nil},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `unknown root "ghost"`) {
		t.Fatalf("a dangling reference is dropped with a warning: %v", c.Warnings)
	}
	if _, ok := c.MCPServers["$schema"]; ok {
		t.Fatal("$schema is not a server")
	}
}

func TestBrokenCatalogFilesAreClearErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "read roots.json") {
		t.Fatalf("missing roots.json: %v", err)
	}
	write(t, dir, "roots.json", `{`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "parse roots.json") {
		t.Fatalf("malformed roots.json: %v", err)
	}
}
