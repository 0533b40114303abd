package catalog

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// artifactFolder is a catalog folder with one skill body on disk and the given files.
func artifactFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{
		"roots.json":             `{"a": {"url": "u"}}`,
		"mcp.json":               `{"docs": {"command": "node"}}`,
		"skills.json":            `{"review": {"description": "Review a change."}}`,
		"skills/review/SKILL.md": "Read the diff.\n",
	}
	for name, text := range files {
		base[name] = text
	}
	for name, text := range base {
		if text == "" {
			continue // "" removes a base file
		}
		write(t, dir, name, text)
	}
	return dir
}

func TestBadRootsSkillsHooksAndPluginsNameFileEntryAndField(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"root field of the wrong type", map[string]string{"roots.json": `{"a": {"url": 7}}`}, `roots.json entry "a": field "url" must be a string`},
		{"root that is not an object", map[string]string{"roots.json": `{"a": "u"}`}, `roots.json entry "a": is not a JSON object`},
		{"skill without a body", map[string]string{"skills/review/SKILL.md": ""}, `skills.json entry "review": skills/review/SKILL.md does not exist`},
		{"skill path outside the catalog", map[string]string{"skills.json": `{"review": {"path": "../elsewhere"}}`}, `skills.json entry "review": field "path"`},
		{"hook without an event", map[string]string{"hooks.json": `{"h": {"command": "true"}}`}, `hooks.json entry "h": field "event" must be one of`},
		{"hook with an unknown event", map[string]string{"hooks.json": `{"h": {"event": "OnBoot", "command": "true"}}`}, `hooks.json entry "h": field "event"`},
		{"hook without a command", map[string]string{"hooks.json": `{"h": {"event": "Stop", "command": " "}}`}, `hooks.json entry "h": field "command" must be a non-empty string`},
		{"hook matcher not a string", map[string]string{"hooks.json": `{"h": {"event": "Stop", "command": "true", "matcher": 1}}`}, `hooks.json entry "h": field "matcher"`},
		{"hook timeout a fraction", map[string]string{"hooks.json": `{"h": {"event": "Stop", "command": "true", "timeout": 1.5}}`}, `hooks.json entry "h": field "timeout"`},
		{"plugin bundling an unknown server", map[string]string{"plugins.json": `{"p": {"mcp_servers": ["ghost"]}}`}, `plugins.json entry "p": field "mcp_servers" names "ghost"`},
		{"plugin bundling an unknown skill", map[string]string{"plugins.json": `{"p": {"skills": ["ghost"]}}`}, `plugins.json entry "p": field "skills" names "ghost"`},
		{"plugin list not of ids", map[string]string{"plugins.json": `{"p": {"hooks": "h"}}`}, `plugins.json entry "p": field "hooks" must be an array of ids`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(artifactFolder(t, tt.files))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestPluginsExpandIntoWhatTheyBundle(t *testing.T) {
	c, err := Load(artifactFolder(t, map[string]string{
		"mcp.json":     `{"docs": {"command": "node"}, "lint": {"command": "lint"}}`,
		"hooks.json":   `{"fmt": {"event": "PostToolUse", "matcher": "Edit", "command": "gofmt -l ."}}`,
		"plugins.json": `{"go-kit": {"title": "Go kit", "mcp_servers": ["lint", "docs"], "skills": ["review"], "hooks": ["fmt"]}}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Expand([]string{"docs"}, nil, nil, []string{"go-kit", "not-in-catalog"})
	want := Selection{MCPServers: []string{"docs", "lint"}, Skills: []string{"review"}, Hooks: []string{"fmt"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("a plugin adds what it bundles, once each: %+v", got)
	}
	if hooks := c.HooksFor(got.Hooks); len(hooks) != 1 || hooks[0] != (Hook{ID: "fmt", Event: "PostToolUse", Matcher: "Edit", Command: "gofmt -l ."}) {
		t.Fatalf("the hook as the catalog defines it: %+v", hooks)
	}
}

func TestBuiltInSkillsHaveBodies(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for id, a := range c.Skills {
		if !strings.HasPrefix(string(a.files[skillFile]), "---\nname: "+id+"\n") {
			t.Errorf("built-in skill %q has a SKILL.md with its name: %q", id, a.files[skillFile])
		}
	}
}

// Each runtime gets the skill folders where it looks for them; a later prepare removes the ones
// Zimmer wrote before and never the repository's own.
func TestSkillsArePreparedInEachRuntimesFolder(t *testing.T) {
	c, err := Load(artifactFolder(t, map[string]string{
		"skills.json":                  `{"review": {"description": "Review a change."}, "notes": {"path": "bodies/notes"}}`,
		"bodies/notes/SKILL.md":        "---\nname: notes\ndescription: Notes.\n---\nWrite notes.\n",
		"bodies/notes/scripts/list.sh": "git log --oneline\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	for runtime, dir := range map[string]string{RuntimeClaude: ".claude/skills", RuntimeCodex: ".agents/skills", RuntimePi: ".pi/skills"} {
		t.Run(runtime, func(t *testing.T) {
			work := t.TempDir()
			write(t, work, filepath.Join(dir, "repo-own", "SKILL.md"), "the repository's")
			out, err := c.WriteSkills(SkillsRequest{Runtime: runtime, WorkDir: work, Skills: []string{"review", "notes", "ghost"}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(out.Written, []string{"notes", "review"}) || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], `"ghost"`) {
				t.Fatalf("written %v, warnings %v", out.Written, out.Warnings)
			}
			review := read(t, filepath.Join(work, dir, "review", "SKILL.md"))
			if review != "---\nname: review\ndescription: \"Review a change.\"\n---\nRead the diff.\n" {
				t.Fatalf("a body without front matter gets the entry's name and description: %q", review)
			}
			if read(t, filepath.Join(work, dir, "notes", "scripts", "list.sh")) != "git log --oneline\n" {
				t.Fatal("a skill's other files come along")
			}

			out, err = c.WriteSkills(SkillsRequest{Runtime: runtime, WorkDir: work, Skills: []string{"notes"}, Previous: out.Written})
			if err != nil || !slices.Equal(out.Written, []string{"notes"}) {
				t.Fatalf("rewrite: %v %v", out.Written, err)
			}
			if _, err := os.Stat(filepath.Join(work, dir, "review")); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("a skill taken off the session is removed")
			}
			if read(t, filepath.Join(work, dir, "repo-own", "SKILL.md")) != "the repository's" {
				t.Fatal("the repository's own skill is untouched")
			}
		})
	}
}

func TestARepositorysOwnSkillOfTheSameNameWins(t *testing.T) {
	c, err := Load(artifactFolder(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	write(t, work, ".claude/skills/review/SKILL.md", "mine")
	out, err := c.WriteSkills(SkillsRequest{Runtime: RuntimeClaude, WorkDir: work, Skills: []string{"review"}})
	if err != nil || len(out.Written) != 0 || len(out.Warnings) != 1 {
		t.Fatalf("kept and warned: %+v %v", out, err)
	}
	if read(t, filepath.Join(work, ".claude/skills/review/SKILL.md")) != "mine" {
		t.Fatal("the repository's skill is kept")
	}
	if _, err := c.WriteSkills(SkillsRequest{Runtime: RuntimeClaude, WorkDir: work, Previous: []string{"../../x"}}); err != nil {
		t.Fatalf("a previous name that is not a folder name is ignored: %v", err)
	}
}

func TestHooksInEachRuntimesFormat(t *testing.T) {
	hooks := []Hook{
		{ID: "fmt", Event: "PostToolUse", Matcher: "Edit|Write", Command: `gofmt -l "$(pwd)"`, Timeout: 30},
		{ID: "hello", Event: "SessionStart", Command: "echo hi"},
	}
	var claude map[string]any
	data, err := ClaudeHookSettings(hooks)
	if err != nil || json.Unmarshal(data, &claude) != nil {
		t.Fatalf("claude settings: %v %s", err, data)
	}
	wantClaude := map[string]any{"hooks": map[string]any{
		"PostToolUse":  []any{map[string]any{"matcher": "Edit|Write", "hooks": []any{map[string]any{"type": "command", "command": `gofmt -l "$(pwd)"`, "timeout": 30.0}}}},
		"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo hi"}}}},
	}}
	if !reflect.DeepEqual(claude, wantClaude) {
		t.Fatalf("claude settings:\n%s", data)
	}

	args := CodexHookArgs(hooks)
	if len(args) != 5 || args[0] != "-c" || args[1] != "features.hooks=true" || args[2] != "-c" || args[4] != "--dangerously-bypass-hook-trust" {
		t.Fatalf("codex args: %q", args)
	}
	var codex map[string]any
	if _, err := toml.Decode(args[3], &codex); err != nil {
		t.Fatalf("the override is TOML: %v\n%s", err, args[3])
	}
	wantCodex := map[string]any{"hooks": map[string]any{
		"PostToolUse":  []any{map[string]any{"matcher": "Edit|Write", "hooks": []any{map[string]any{"type": "command", "command": `gofmt -l "$(pwd)"`, "timeout": int64(30)}}}},
		"SessionStart": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo hi"}}}},
	}}
	if !reflect.DeepEqual(codex, wantCodex) {
		t.Fatalf("codex override %s decodes to %#v", args[3], codex)
	}
	if CodexHookArgs(nil) != nil {
		t.Fatal("no hooks, no flags")
	}
	if HooksUnsupported(RuntimePi, hooks) == "" || HooksUnsupported(RuntimeClaude, hooks) != "" {
		t.Fatal("only Pi leaves hooks out, and says so")
	}
}

func TestCodexTrustsTheWorkingDirectoryForThisRunOnly(t *testing.T) {
	args := CodexTrustArgs(`/work/a "quoted" dir`)
	var doc map[string]any
	if _, err := toml.Decode(args[1], &doc); err != nil || args[0] != "-c" {
		t.Fatalf("%q: %v", args, err)
	}
	want := map[string]any{"projects": map[string]any{`/work/a "quoted" dir`: map[string]any{"trust_level": "trusted"}}}
	if !reflect.DeepEqual(doc, want) {
		t.Fatalf("%#v", doc)
	}
}

func TestAChangedSkillBodyReloadsTheCatalog(t *testing.T) {
	dir := artifactFolder(t, nil)
	live, err := NewLive(dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	body := filepath.Join(dir, "skills", "review", "SKILL.md")
	write(t, dir, "skills/review/SKILL.md", "Read the diff twice.\n")
	at := time.Now().Add(time.Minute)
	if err := os.Chtimes(body, at, at); err != nil {
		t.Fatal(err)
	}
	if !live.Reload() || !strings.HasSuffix(string(live.Current().Skills["review"].files[skillFile]), "Read the diff twice.\n") {
		t.Fatal("an edited SKILL.md reaches the catalog")
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
