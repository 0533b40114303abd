package catalog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Skill bodies: a skill is a folder holding SKILL.md (and whatever it references), at
// skills/<id>/ in the catalog unless its entry's "path" names another folder.
const (
	skillsDir     = "skills"
	skillFile     = "SKILL.md"
	maxSkillBytes = 4 << 20 // one skill's files together
)

// hookEvents are the lifecycle events a catalog hook may name: the ones Claude Code and Codex
// share, spelled as both spell them.
var hookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}

// Hook is one catalog hook: a command run at a lifecycle event of the agent.
type Hook struct {
	ID      string
	Event   string
	Matcher string // "" matches everything
	Command string
	Timeout int // seconds; 0 is the runtime's default
}

// Selection is what a session's lists come to once plugins are expanded into the MCP servers,
// skills and hooks they bundle: each list deduplicated, in first-named order.
type Selection struct {
	MCPServers, Skills, Hooks []string
}

// Expand adds each selected plugin's bundled servers, skills and hooks to the session's own
// lists. A plugin the catalog does not hold contributes nothing.
func (c *Catalog) Expand(servers, skills, hooks, plugins []string) Selection {
	sel := Selection{MCPServers: slices.Clone(servers), Skills: slices.Clone(skills), Hooks: slices.Clone(hooks)}
	for _, id := range plugins {
		if p, ok := c.Plugins[id]; ok {
			sel.MCPServers = append(sel.MCPServers, p.bundle["mcp_servers"]...)
			sel.Skills = append(sel.Skills, p.bundle["skills"]...)
			sel.Hooks = append(sel.Hooks, p.bundle["hooks"]...)
		}
	}
	sel.MCPServers, sel.Skills, sel.Hooks = dedupe(sel.MCPServers), dedupe(sel.Skills), dedupe(sel.Hooks)
	return sel
}

func dedupe(list []string) []string {
	var out []string
	for _, id := range list {
		out = appendNew(out, id)
	}
	return out
}

// HooksFor returns the catalog hooks of ids, in order; an id the catalog does not hold is skipped.
func (c *Catalog) HooksFor(ids []string) []Hook {
	var out []Hook
	for _, id := range ids {
		if a, ok := c.Hooks[id]; ok && a.hook != nil {
			out = append(out, *a.hook)
		}
	}
	return out
}

// loadSkillBodies reads every skill's folder; a skill without SKILL.md is an error naming the
// entry and its path.
func (c *Catalog) loadSkillBodies(fsys fs.FS) error {
	for _, id := range sortedKeys(c.Skills) {
		a := c.Skills[id]
		dir := path.Join(skillsDir, id)
		if p, ok := a.Raw["path"]; ok {
			s, isString := p.(string)
			if !isString || !fs.ValidPath(s) || s == "." {
				return fmt.Errorf("%w: skills.json entry %q: field \"path\" must be a relative folder inside the catalog", ErrInvalid, id)
			}
			dir = s
		}
		files, err := readSkill(fsys, dir)
		if err != nil {
			return fmt.Errorf("%w: skills.json entry %q: %v", ErrInvalid, id, err)
		}
		if _, ok := files[skillFile]; !ok {
			return fmt.Errorf("%w: skills.json entry %q: %s/%s does not exist (a skill is a folder holding %s)", ErrInvalid, id, dir, skillFile, skillFile)
		}
		files[skillFile] = withFrontMatter(files[skillFile], id, a.Description)
		a.files = files
	}
	return nil
}

// readSkill reads a skill folder's regular files (links are refused: a catalog never reaches
// outside itself), at most maxSkillBytes together.
func readSkill(fsys fs.FS, dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	total := 0
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return nil // reported as the missing SKILL.md
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if total += len(data); total > maxSkillBytes {
			return fmt.Errorf("%s holds more than %d bytes", dir, maxSkillBytes)
		}
		files[strings.TrimPrefix(p, dir+"/")] = data
		return nil
	})
	return files, err
}

// withFrontMatter gives a SKILL.md without front matter the name and description every runtime
// requires of one.
func withFrontMatter(body []byte, id, description string) []byte {
	if bytes.HasPrefix(body, []byte("---\n")) {
		return body
	}
	desc, _ := json.Marshal(oneLineText(cmp.Or(description, id))) // a JSON string is a valid YAML scalar
	return fmt.Appendf(nil, "---\nname: %s\ndescription: %s\n---\n%s", id, desc, body)
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkHook validates a hooks.json entry, naming the entry and field of the first problem.
func checkHook(a *Artifact) error {
	bad := func(field, want string) error {
		return fmt.Errorf("%w: hooks.json entry %q: field %q %s", ErrInvalid, a.Name, field, want)
	}
	h := &Hook{ID: a.Name}
	var ok bool
	if h.Event, ok = a.Raw["event"].(string); !ok || !slices.Contains(hookEvents, h.Event) {
		return bad("event", "must be one of "+strings.Join(hookEvents, ", "))
	}
	if h.Command, ok = a.Raw["command"].(string); !ok || strings.TrimSpace(h.Command) == "" {
		return bad("command", "must be a non-empty string")
	}
	if v, present := a.Raw["matcher"]; present {
		if h.Matcher, ok = v.(string); !ok {
			return bad("matcher", "must be a string")
		}
	}
	if v, present := a.Raw["timeout"]; present {
		f, isNumber := v.(float64)
		if !isNumber || f != float64(int(f)) || f < 1 || f > 3600 {
			return bad("timeout", "must be an integer number of seconds from 1 to 3600")
		}
		h.Timeout = int(f)
	}
	a.hook = h
	return nil
}

// bundleKinds are what a plugin can bundle, with the catalog each id must be in.
func (c *Catalog) bundleKinds() map[string]map[string]*Artifact {
	return map[string]map[string]*Artifact{"mcp_servers": c.MCPServers, "skills": c.Skills, "hooks": c.Hooks}
}

// checkPlugin validates a plugins.json entry: each bundled id must be in its catalog.
func (c *Catalog) checkPlugin(a *Artifact) error {
	a.bundle = map[string][]string{}
	kinds := c.bundleKinds()
	for _, kind := range sortedKeys(kinds) {
		v, present := a.Raw[kind]
		if !present {
			continue
		}
		if !isStringList(v) {
			return fmt.Errorf("%w: plugins.json entry %q: field %q must be an array of ids", ErrInvalid, a.Name, kind)
		}
		ids := stringSlice(v)
		if unknown := Unknown(ids, kinds[kind]); len(unknown) > 0 {
			return fmt.Errorf("%w: plugins.json entry %q: field %q names %q, which is not in the catalog", ErrInvalid, a.Name, kind, unknown[0])
		}
		a.bundle[kind] = ids
	}
	return nil
}
