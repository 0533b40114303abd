// Package catalog loads what sessions can be built from: agent roots (roots.json), MCP servers
// (mcp.json), skills, hooks, plugins, goals and each runtime's models.
package catalog

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
)

//go:embed default/*.json default/skills
var defaultFS embed.FS

// Root is one agent root: a repository and the defaults a session started on it takes.
type Root struct {
	Name              string   `json:"name"`
	DisplayName       string   `json:"display_name"`
	Description       string   `json:"description"`
	URL               string   `json:"url"`
	DefaultBranch     string   `json:"default_branch"`
	Subdirectory      string   `json:"subdirectory,omitempty"`
	UserInvocable     *bool    `json:"user_invocable,omitempty"`
	DefaultGoal       string   `json:"default_goal,omitempty"`
	DefaultRuntime    string   `json:"default_runtime,omitempty"`
	DefaultModel      string   `json:"default_model,omitempty"`
	DefaultInRoots    []string `json:"default_in_roots,omitempty"`
	DefaultMCPServers []string `json:"-"` // computed by inverting each artifact's default_in_roots
	DefaultSkills     []string `json:"-"`
	DefaultHooks      []string `json:"-"`
	DefaultPlugins    []string `json:"-"`
	SubagentRoots     []string `json:"-"`
}

// Artifact is a catalog entry of any kind; only the fields Zimmer reads are typed.
type Artifact struct {
	Name           string         `json:"-"`
	Title          string         `json:"title"`
	Description    string         `json:"description"`
	DefaultInRoots []string       `json:"default_in_roots"`
	Raw            map[string]any `json:"-"`
	// Unavailable is an MCP server's declared reason it cannot work here, normalised to one
	// line of at most 200 characters; "" when the entry declares none.
	Unavailable string `json:"-"`
	// StartupTimeoutSec is an MCP server's accepted startup_timeout_sec (an integer in 5..600);
	// nil when absent or refused, which the API reports as null.
	StartupTimeoutSec *int `json:"-"`

	files  map[string][]byte   // a skill's folder, by path inside it (SKILL.md always present)
	hook   *Hook               // a hook's accepted definition
	bundle map[string][]string // a plugin's bundled ids by kind: mcp_servers, skills, hooks
}

// Model is one model a runtime can run.
type Model struct {
	ID            string `json:"id"`
	Label         string `json:"label"`
	Default       bool   `json:"default"`
	RequiresOAuth bool   `json:"requires_oauth"`
}

// Runtime is an agent CLI Zimmer can drive, with its models.
type Runtime struct {
	Label  string  `json:"label"`
	Models []Model `json:"models"`
}

// Goal is a named definition of done.
type Goal struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Catalog is the loaded, cross-referenced catalog. It is read-only after Load.
type Catalog struct {
	Roots      map[string]*Root
	MCPServers map[string]*Artifact
	Skills     map[string]*Artifact
	Hooks      map[string]*Artifact
	Plugins    map[string]*Artifact
	Runtimes   map[string]Runtime
	Goals      []Goal
	Warnings   []string // dangling references dropped while loading
}

// DefaultRoot is the agent root a caller that names none is offered first (the original's
// AO_DEFAULT_AGENT_ROOT default); GET /configs marks it.
const DefaultRoot = "general-agent"

// ErrInvalid wraps every catalog file that cannot be used.
var ErrInvalid = errors.New("invalid catalog")

// Files names the catalog's files: the two a catalog folder must hold, then the ones that fall
// back to the built-in copy when the folder has none.
var (
	requiredFiles = []string{"roots.json", "mcp.json"}
	optionalFiles = []string{"skills.json", "hooks.json", "plugins.json", "runtimes.json", "goals.json"}
)

// Load reads the catalog from dir, or the catalog built into the binary when dir is empty. A
// folder must hold roots.json and mcp.json (the contract); every other file it lacks is taken
// from the built-in catalog.
func Load(dir string) (*Catalog, error) {
	builtin, err := fs.Sub(defaultFS, "default")
	if err != nil {
		return nil, fmt.Errorf("open built-in catalog: %w", err)
	}
	fsys := builtin
	if dir != "" {
		fsys = fallbackFS{primary: os.DirFS(dir), fallback: builtin}
	}
	c := &Catalog{}
	if c.Roots, err = readRoots(fsys); err != nil {
		return nil, err
	}
	if c.MCPServers, err = readArtifacts(fsys, "mcp.json"); err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(c.MCPServers) {
		if err := c.checkServer(c.MCPServers[id]); err != nil {
			return nil, err
		}
	}
	if c.Skills, err = readArtifacts(fsys, "skills.json"); err != nil {
		return nil, err
	}
	if err := c.loadSkillBodies(fsys); err != nil {
		return nil, err
	}
	if c.Hooks, err = readArtifacts(fsys, "hooks.json"); err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(c.Hooks) {
		if err := checkHook(c.Hooks[id]); err != nil {
			return nil, err
		}
	}
	if c.Plugins, err = readArtifacts(fsys, "plugins.json"); err != nil {
		return nil, err
	}
	for _, id := range sortedKeys(c.Plugins) {
		if err := c.checkPlugin(c.Plugins[id]); err != nil {
			return nil, err
		}
	}
	if err := readJSON(fsys, "runtimes.json", false, &c.Runtimes); err != nil {
		return nil, err
	}
	if err := readJSON(fsys, "goals.json", false, &c.Goals); err != nil {
		return nil, err
	}
	c.invertDefaults()
	return c, nil
}

// fallbackFS reads the catalog folder's own files (roots.json and mcp.json only from there) and
// the built-in copy of any other file the folder does not hold.
type fallbackFS struct{ primary, fallback fs.FS }

func (f fallbackFS) Open(name string) (fs.File, error) {
	file, err := f.primary.Open(name)
	if errors.Is(err, fs.ErrNotExist) && !slices.Contains(requiredFiles, name) {
		return f.fallback.Open(name)
	}
	return file, err
}

func readJSON(fsys fs.FS, name string, required bool, into any) error {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: read %s: %v", ErrInvalid, name, err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		return fmt.Errorf("%w: parse %s: %v", ErrInvalid, name, err)
	}
	return nil
}

// readRoots reads roots.json entry by entry, so a bad one is named with its field.
func readRoots(fsys fs.FS) (map[string]*Root, error) {
	var raw map[string]json.RawMessage
	if err := readJSON(fsys, "roots.json", true, &raw); err != nil {
		return nil, err
	}
	roots := make(map[string]*Root, len(raw))
	for name, msg := range raw {
		if strings.HasPrefix(name, "$") { // "$schema"
			continue
		}
		r := &Root{}
		if err := json.Unmarshal(msg, r); err != nil {
			return nil, fmt.Errorf("%w: roots.json entry %q: %s", ErrInvalid, name, fieldProblem(err))
		}
		r.Name = name
		if r.DefaultBranch == "" {
			r.DefaultBranch = "main"
		}
		roots[name] = r
	}
	return roots, nil
}

func readArtifacts(fsys fs.FS, name string) (map[string]*Artifact, error) {
	var raw map[string]json.RawMessage
	if err := readJSON(fsys, name, slices.Contains(requiredFiles, name), &raw); err != nil {
		return nil, err
	}
	out := map[string]*Artifact{}
	for id, msg := range raw {
		if strings.HasPrefix(id, "$") { // "$schema"
			continue
		}
		a := &Artifact{Name: id}
		if err := json.Unmarshal(msg, &a.Raw); err != nil || a.Raw == nil {
			return nil, fmt.Errorf("%w: %s entry %q is not a JSON object", ErrInvalid, name, id)
		}
		if err := json.Unmarshal(msg, a); err != nil {
			return nil, fmt.Errorf("%w: %s entry %q: %s", ErrInvalid, name, id, fieldProblem(err))
		}
		if a.Title == "" {
			a.Title = id
		}
		out[id] = a
	}
	return out, nil
}

// invertDefaults computes each root's default lists from the artifacts' default_in_roots, the
// way the original's resolver does; "*" means every root, and a root never becomes its own subagent.
func (c *Catalog) invertDefaults() {
	assign := func(kind string, arts map[string]*Artifact, add func(*Root, string)) {
		for _, id := range sortedKeys(arts) {
			for _, target := range arts[id].DefaultInRoots {
				c.eachTarget(kind, id, target, func(r *Root) { add(r, id) })
			}
		}
	}
	assign("mcp server", c.MCPServers, func(r *Root, id string) { r.DefaultMCPServers = appendNew(r.DefaultMCPServers, id) })
	assign("skill", c.Skills, func(r *Root, id string) { r.DefaultSkills = appendNew(r.DefaultSkills, id) })
	assign("hook", c.Hooks, func(r *Root, id string) { r.DefaultHooks = appendNew(r.DefaultHooks, id) })
	assign("plugin", c.Plugins, func(r *Root, id string) { r.DefaultPlugins = appendNew(r.DefaultPlugins, id) })
	for _, name := range sortedKeys(c.Roots) {
		for _, target := range c.Roots[name].DefaultInRoots {
			c.eachTarget("root", name, target, func(r *Root) {
				if r.Name != name {
					r.SubagentRoots = appendNew(r.SubagentRoots, name)
				}
			})
		}
	}
}

// appendNew appends id unless the list already holds it (a root named twice, once by "*").
func appendNew(list []string, id string) []string {
	if slices.Contains(list, id) {
		return list
	}
	return append(list, id)
}

func (c *Catalog) eachTarget(kind, id, target string, fn func(*Root)) {
	if target == "*" {
		for _, name := range sortedKeys(c.Roots) {
			fn(c.Roots[name])
		}
		return
	}
	r, ok := c.Roots[target]
	if !ok {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s %q names unknown root %q in default_in_roots; dropped", kind, id, target))
		return
	}
	fn(r)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Unknown returns the ids in want that are not keys of have, in order.
func Unknown(want []string, have map[string]*Artifact) []string {
	var missing []string
	for _, id := range want {
		if _, ok := have[id]; !ok {
			missing = append(missing, id)
		}
	}
	return missing
}

// IDs returns the sorted ids of a kind, for error messages that list the valid ones.
func IDs(have map[string]*Artifact) []string { return sortedKeys(have) }

// RuntimeNames returns the registered runtimes, sorted.
func (c *Catalog) RuntimeNames() []string { return sortedKeys(c.Runtimes) }

// DefaultModel is the runtime's default model id, or "" for an unknown runtime.
func (c *Catalog) DefaultModel(runtime string) string {
	for _, m := range c.Runtimes[runtime].Models {
		if m.Default {
			return m.ID
		}
	}
	return ""
}

// ModelIDs lists a runtime's model ids in catalog order.
func (c *Catalog) ModelIDs(runtime string) []string {
	var ids []string
	for _, m := range c.Runtimes[runtime].Models {
		ids = append(ids, m.ID)
	}
	return ids
}

// HasModel reports whether the runtime offers the model.
func (c *Catalog) HasModel(runtime, model string) bool {
	return slices.Contains(c.ModelIDs(runtime), model)
}

// ResolveGoal turns a goal id into its description; free text passes through unchanged.
func (c *Catalog) ResolveGoal(goal string) string {
	for _, g := range c.Goals {
		if g.ID == goal {
			return g.Description
		}
	}
	return goal
}
