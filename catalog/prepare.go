package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// skillDirs is where each runtime finds a project's skills, one folder per skill.
var skillDirs = map[string]string{
	RuntimeClaude: filepath.Join(".claude", "skills"),
	RuntimeCodex:  filepath.Join(".agents", "skills"),
	RuntimePi:     filepath.Join(".pi", "skills"),
}

// SkillsRequest is what one prepare writes skills for.
type SkillsRequest struct {
	Runtime string
	WorkDir string
	Skills  []string // the session's skills, plugins expanded
	// Previous are the skills Zimmer wrote here on an earlier prepare (SkillsWritten.Written):
	// their folders are removed first, so a skill taken off the session is gone, while the
	// repository's own skills are never touched.
	Previous []string
}

// SkillsWritten is what WriteSkills wrote.
type SkillsWritten struct {
	Dir      string   // the runtime's skills folder, relative to the working directory
	Written  []string // the skills Zimmer wrote, sorted: the next prepare's Previous
	Warnings []string
}

// WriteSkills prepares the session's skills in the runtime's skills folder, each as the folder
// the catalog holds. A skill the repository already has under that name is the repository's and
// is kept as it is.
func (c *Catalog) WriteSkills(req SkillsRequest) (SkillsWritten, error) {
	rel, ok := skillDirs[req.Runtime]
	if !ok {
		return SkillsWritten{}, fmt.Errorf("write skills: %w %q", ErrUnknownRuntime, req.Runtime)
	}
	out := SkillsWritten{Dir: rel}
	root, err := os.OpenRoot(req.WorkDir)
	if err != nil {
		return out, fmt.Errorf("write skills: %w", err)
	}
	defer root.Close()
	for _, id := range req.Previous {
		if !validSkillID(id) {
			continue
		}
		if err := noLinks(root, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, fmt.Errorf("write skills: %w", err)
		}
		if err := root.RemoveAll(filepath.Join(rel, id)); err != nil {
			return out, fmt.Errorf("remove skill %q Zimmer wrote earlier: %w", id, err)
		}
	}
	for _, id := range req.Skills {
		a, ok := c.Skills[id]
		if !ok || !validSkillID(id) {
			out.Warnings = append(out.Warnings, fmt.Sprintf("skill %q is not in the catalog; left out", id))
			continue
		}
		dir := filepath.Join(rel, id)
		if _, err := root.Lstat(dir); err == nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("skill %q: the repository has its own %s; it is kept and the catalog's is left out", id, dir))
			continue
		}
		if err := writeSkill(root, dir, a.files); err != nil {
			return out, fmt.Errorf("write skill %q: %w", id, err)
		}
		out.Written = append(out.Written, id)
	}
	slices.Sort(out.Written)
	return out, nil
}

// validSkillID: a skill's id names its folder, so it must be one plain path element.
func validSkillID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}

func writeSkill(root *os.Root, dir string, files map[string][]byte) error {
	for _, name := range sortedKeys(files) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := root.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := noLinks(root, filepath.Dir(p)); err != nil {
			return err
		}
		if err := root.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ClaudeHookSettings is a Claude Code settings document carrying the hooks, for its --settings
// flag: settings given that way add to the project's own hooks rather than replace them.
func ClaudeHookSettings(hooks []Hook) ([]byte, error) {
	events := map[string][]any{}
	for _, h := range hooks {
		handler := map[string]any{"type": "command", "command": h.Command}
		if h.Timeout > 0 {
			handler["timeout"] = h.Timeout
		}
		group := map[string]any{"hooks": []any{handler}}
		if h.Matcher != "" {
			group["matcher"] = h.Matcher
		}
		events[h.Event] = append(events[h.Event], group)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a command's > and & stay readable
	enc.SetIndent("", "  ")
	err := enc.Encode(map[string]any{"hooks": events})
	return b.Bytes(), err
}

// CodexHookArgs are the command-line arguments that give Codex the hooks: the hooks feature, the
// hooks as a config override, and the flag that runs them without Codex's interactive review
// (Zimmer vetted them: they come from the catalog). None without hooks.
func CodexHookArgs(hooks []Hook) []string {
	if len(hooks) == 0 {
		return nil
	}
	events := map[string][]string{}
	for _, h := range hooks {
		handler := "type=" + tomlString("command") + ",command=" + tomlString(h.Command)
		if h.Timeout > 0 {
			handler += ",timeout=" + strconv.Itoa(h.Timeout)
		}
		group := "hooks=[{" + handler + "}]"
		if h.Matcher != "" {
			group = "matcher=" + tomlString(h.Matcher) + "," + group
		}
		events[h.Event] = append(events[h.Event], "{"+group+"}")
	}
	var tables []string
	for _, ev := range sortedKeys(events) {
		tables = append(tables, ev+"=["+strings.Join(events[ev], ",")+"]")
	}
	return []string{"-c", "features.hooks=true", "-c", "hooks={" + strings.Join(tables, ",") + "}", "--dangerously-bypass-hook-trust"}
}

// CodexTrustArgs make Codex read the working directory's .codex/config.toml, where Zimmer writes
// the session's MCP servers: Codex ignores a project's config unless the project is trusted, and
// trust otherwise lives in the operator's own ~/.codex/config.toml.
func CodexTrustArgs(workDir string) []string {
	return []string{"-c", "projects={" + tomlString(workDir) + "={trust_level=" + tomlString("trusted") + "}}"}
}

// tomlString quotes s as a TOML basic string (a JSON string is one).
func tomlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// HooksUnsupported says which hooks a runtime without hooks leaves out ("" when none are).
func HooksUnsupported(runtime string, hooks []Hook) string {
	if runtime != RuntimePi || len(hooks) == 0 {
		return ""
	}
	ids := make([]string, len(hooks))
	for i, h := range hooks {
		ids[i] = h.ID
	}
	return fmt.Sprintf("Pi runs no hooks; hook(s) %s left out", strings.Join(ids, ", "))
}
