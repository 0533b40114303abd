package catalog

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The runtime keys a config can be written for.
const (
	RuntimeClaude = "claude_code"
	RuntimeCodex  = "codex"
	RuntimePi     = "pi"
)

// Names of the entries Zimmer injects itself (seed 000, "What Zimmer injects into every session").
const (
	SelfSessionServer = "zimmer-self-session"
	SubagentServer    = "zimmer"
)

// DefaultStartupTimeoutSec is every MCP server's startup budget unless its catalog entry
// declares one (seed 002, "Timeouts and caching").
const DefaultStartupTimeoutSec = 180

// Server is one MCP server entry in the normalised form every runtime's file is read into and
// written from.
type Server struct {
	Type    string // stdio, http or sse
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Extra holds the keys the pipeline does not interpret (a checked-in startup_timeout_sec or
	// requestTimeoutMs, Codex's env_vars …), written back verbatim.
	Extra map[string]any
	// declared is the catalog's accepted startup_timeout_sec (0 when none); never written as such.
	declared int
}

func (s *Server) remote() bool { return s.Type != "stdio" }

// RuntimeConfigRequest is what one prepare writes a runtime config for.
type RuntimeConfigRequest struct {
	Runtime   string // RuntimeClaude, RuntimeCodex or RuntimePi
	WorkDir   string // the agent's working directory; the file goes here
	SessionID int64
	Servers   []string // the session's selected catalog servers
	Root      string   // the session's agent root ("" when none); its subagent roots get the zimmer entry
	PublicURL string   // this instance (ZIMMER_PUBLIC_URL): where every zimmer* entry points
	APIKey    string   // sent as X-API-Key by every zimmer* entry (the first of API_KEYS)
	// Lookup resolves ${VAR} placeholders (os.LookupEnv in production). ZIMMER_PUBLIC_URL and
	// ZIMMER_API_KEY resolve to PublicURL and APIKey first.
	Lookup func(string) (string, bool)
}

// RuntimeConfig is what WriteRuntimeConfig wrote.
type RuntimeConfig struct {
	Path     string   // the file written
	Injected []string // entries Zimmer added itself, for custom_metadata.injected_mcp_servers
	// Env is process-level environment for the agent CLI: Claude's MCP_TIMEOUT and
	// NPM_CONFIG_CACHE (Codex and Pi take everything per entry).
	Env      map[string]string
	Warnings []string
}

// UnresolvedError is a ${VAR} with no value and no default: the whole prepare fails
// (failure_reason air_secret_unresolvable), before the agent gets a server that cannot work.
type UnresolvedError struct{ Variables []string }

func (e *UnresolvedError) Error() string {
	return "MCP config needs environment variables that are not set: " + strings.Join(e.Variables, ", ")
}

// ErrUnknownRuntime is a runtime no config writer exists for.
var ErrUnknownRuntime = errors.New("unknown agent runtime")

// runtimeRules is how one runtime differs: its file format and its startup-timeout idiom.
type runtimeRules struct {
	format   configFormat
	timeouts func(servers map[string]*Server, env map[string]string)
	// processNpmCache exports NPM_CONFIG_CACHE on the agent process too (Claude only: Codex
	// builds each server's environment from a whitelist, Pi's adapter reads its own).
	processNpmCache bool
}

var runtimes = map[string]runtimeRules{
	RuntimeClaude: {format: jsonFormat{}, timeouts: claudeTimeouts, processNpmCache: true},
	RuntimeCodex:  {format: tomlFormat{}, timeouts: codexTimeouts},
	RuntimePi:     {format: jsonFormat{}, timeouts: piTimeouts},
}

// WriteRuntimeConfig writes the session's MCP config in the runtime's own file (reference
// §4.6): the file already in the working directory wins entry by entry, the selected catalog
// servers are added, zimmer and zimmer-self-session are injected by the seed's collision rules,
// every zimmer* entry is pointed at this instance and stamped with the session, ${VAR}s are
// resolved, npx servers get their caches pinned and each runtime its startup budget.
func (c *Catalog) WriteRuntimeConfig(req RuntimeConfigRequest) (RuntimeConfig, error) {
	rules, ok := runtimes[req.Runtime]
	if !ok {
		return RuntimeConfig{}, fmt.Errorf("write MCP config: %w %q", ErrUnknownRuntime, req.Runtime)
	}
	out := RuntimeConfig{Path: rules.format.path(req.WorkDir), Env: map[string]string{}}
	doc, servers, err := readConfig(rules.format, out.Path)
	if err != nil {
		return RuntimeConfig{}, err
	}
	out.Warnings = c.seedSelected(servers, req.Servers)
	if err := resolvePlaceholders(servers, req.lookup()); err != nil {
		return RuntimeConfig{}, err
	}
	out.Injected = c.inject(servers, req)
	out.Warnings = append(out.Warnings, retarget(servers, req)...)
	pinNpxCaches(servers, req.WorkDir)
	rules.timeouts(servers, out.Env)
	if rules.processNpmCache {
		out.Env["NPM_CONFIG_CACHE"] = filepath.Join(req.WorkDir, npmCacheDir)
	}
	data, err := rules.format.encode(doc, servers)
	if err != nil {
		return RuntimeConfig{}, fmt.Errorf("encode %s: %w", out.Path, err)
	}
	if err := os.MkdirAll(filepath.Dir(out.Path), 0o755); err != nil {
		return RuntimeConfig{}, fmt.Errorf("write MCP config: %w", err)
	}
	if err := os.WriteFile(out.Path, data, 0o600); err != nil { // it carries resolved secrets
		return RuntimeConfig{}, fmt.Errorf("write MCP config: %w", err)
	}
	return out, nil
}

func (r RuntimeConfigRequest) lookup() func(string) (string, bool) {
	own := map[string]string{"ZIMMER_PUBLIC_URL": strings.TrimRight(r.PublicURL, "/"), "ZIMMER_API_KEY": r.APIKey}
	return func(name string) (string, bool) {
		if v, ok := own[name]; ok {
			return v, true
		}
		if r.Lookup == nil {
			return "", false
		}
		return r.Lookup(name)
	}
}

func readConfig(f configFormat, path string) (map[string]any, map[string]*Server, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{}, map[string]*Server{}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read MCP config: %w", err)
	}
	doc, servers, err := f.decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return doc, servers, nil
}

// catalogOnlyKeys describe an entry to Zimmer and never reach a runtime.
var catalogOnlyKeys = []string{"title", "description", "default_in_roots", "unavailable", "startup_timeout_sec", "oauth", "$schema"}

// seedSelected adds each selected catalog server the file does not already carry (an existing
// entry is never overwritten) and attaches every catalog-declared startup budget.
func (c *Catalog) seedSelected(servers map[string]*Server, selected []string) []string {
	var warnings []string
	for _, id := range selected {
		a, ok := c.MCPServers[id]
		if !ok {
			warnings = append(warnings, fmt.Sprintf("MCP server %q is not in the catalog; left out of the config", id))
			continue
		}
		if _, exists := servers[id]; !exists {
			s := serverFromMap(a.Raw, catalogOnlyKeys)
			if problem := s.incomplete(); problem != "" {
				warnings = append(warnings, fmt.Sprintf("MCP server %q %s; left out of the config", id, problem))
				continue
			}
			servers[id] = s
		}
		servers[id].declared = a.StartupTimeoutSec()
	}
	return warnings
}

func (s *Server) incomplete() string {
	if s.remote() && s.URL == "" {
		return "is remote but has no url"
	}
	if !s.remote() && s.Command == "" {
		return "is stdio but has no command"
	}
	return ""
}

// StartupTimeoutSec is the entry's accepted startup_timeout_sec: an integer in 5..600, else 0
// (absent, a string, a fraction or out of range all fall back to the default).
func (a *Artifact) StartupTimeoutSec() int {
	v, ok := a.Raw["startup_timeout_sec"].(float64)
	if !ok || v != float64(int(v)) || v < 5 || v > 600 {
		return 0
	}
	return int(v)
}

// inject adds zimmer for a root with subagent roots unless the file or catalog already has a
// zimmer entry (never narrow a full-surface one), then zimmer-self-session unless some zimmer*
// entry already covers the self_session surface.
func (c *Catalog) inject(servers map[string]*Server, req RuntimeConfigRequest) []string {
	var injected []string
	base := strings.TrimRight(req.PublicURL, "/") + "/mcp?"
	if root, ok := c.Roots[req.Root]; ok && len(root.SubagentRoots) > 0 {
		if _, exists := servers[SubagentServer]; !exists {
			roots := make([]string, len(root.SubagentRoots))
			for i, r := range root.SubagentRoots {
				roots[i] = url.QueryEscape(r)
			}
			servers[SubagentServer] = zimmerEntry(base + "allowed_agent_roots=" + strings.Join(roots, ","))
			injected = append(injected, SubagentServer)
		}
	}
	if !coversSelfSession(servers) {
		servers[SelfSessionServer] = zimmerEntry(base + "tool_groups=self_session")
		injected = append(injected, SelfSessionServer)
	}
	return injected
}

func zimmerEntry(u string) *Server {
	return &Server{Type: "http", URL: u, Headers: map[string]string{}, Extra: map[string]any{}}
}

// IsZimmerServer reports whether an entry name is one of Zimmer's own (zimmer, zimmer-*).
func IsZimmerServer(name string) bool {
	return name == SubagentServer || strings.HasPrefix(name, SubagentServer+"-")
}

// coversSelfSession: a zimmer* entry without tool_groups is the full surface; one whose groups
// name self_session carries it explicitly.
func coversSelfSession(servers map[string]*Server) bool {
	for name, s := range servers {
		if !IsZimmerServer(name) || s.URL == "" {
			continue
		}
		u, err := url.Parse(s.URL)
		if err != nil {
			continue
		}
		groups := u.Query().Get("tool_groups")
		if groups == "" || slices.Contains(strings.Split(groups, ","), "self_session") {
			return true
		}
	}
	return false
}

// retarget points every zimmer* entry at this instance with this instance's key, keeping its
// path and query (the scoping), and stamps session_id unless the entry already names one.
func retarget(servers map[string]*Server, req RuntimeConfigRequest) []string {
	var warnings []string
	self, err := url.Parse(req.PublicURL)
	if err != nil || self.Host == "" {
		return []string{fmt.Sprintf("ZIMMER_PUBLIC_URL %q is not a URL; zimmer* entries were not retargeted", req.PublicURL)}
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		if !IsZimmerServer(name) || s.URL == "" {
			continue
		}
		u, err := url.Parse(s.URL)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("MCP server %q has an unparsable url; not retargeted", name))
			continue
		}
		u.Scheme, u.Host = self.Scheme, self.Host
		if q := u.Query(); q.Get("session_id") == "" {
			u.RawQuery = strings.TrimPrefix(u.RawQuery+"&session_id="+strconv.FormatInt(req.SessionID, 10), "&")
		}
		s.URL = u.String()
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		if req.APIKey == "" {
			warnings = append(warnings, fmt.Sprintf("MCP server %q will call Zimmer without a key: API_KEYS is empty in this process", name))
			continue
		}
		s.Headers["X-API-Key"] = req.APIKey
	}
	return warnings
}

// The startup-timeout rule (reference §4.7).

func claudeTimeouts(servers map[string]*Server, env map[string]string) {
	if len(servers) == 0 {
		return
	}
	budget := DefaultStartupTimeoutSec
	for _, s := range servers {
		budget = max(budget, s.declared)
	}
	env["MCP_TIMEOUT"] = strconv.Itoa(budget * 1000)
}

func codexTimeouts(servers map[string]*Server, _ map[string]string) {
	for _, s := range servers {
		if _, ok := s.Extra["startup_timeout_sec"]; ok {
			continue
		}
		if _, ok := s.Extra["startup_timeout_ms"]; ok {
			continue
		}
		switch {
		case s.declared > 0:
			s.Extra["startup_timeout_sec"] = int64(s.declared)
		case !s.remote():
			s.Extra["startup_timeout_sec"] = int64(DefaultStartupTimeoutSec)
		}
	}
}

func piTimeouts(servers map[string]*Server, _ map[string]string) {
	for _, s := range servers {
		if _, ok := s.Extra["requestTimeoutMs"]; ok {
			continue
		}
		switch {
		case s.declared > DefaultStartupTimeoutSec:
			s.Extra["requestTimeoutMs"] = int64(s.declared * 1000)
		case !s.remote():
			s.Extra["requestTimeoutMs"] = int64(DefaultStartupTimeoutSec * 1000)
		}
	}
}
