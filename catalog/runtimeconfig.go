package catalog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/zimmerhq/zimmer/config"
)

// The runtime keys a config can be written for.
const (
	RuntimeClaude = "claude_code"
	RuntimeCodex  = "codex"
	RuntimePi     = "pi"
)

// RuntimeKeys lists every runtime Zimmer drives.
var RuntimeKeys = []string{RuntimeClaude, RuntimeCodex, RuntimePi}

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
	// Token is the session's own capability token, sent as X-API-Key by every zimmer* entry: it
	// authenticates as this session, so the fleet's keys never reach an agent's config.
	Token string
	// Lookup resolves ${VAR} placeholders in catalog entries (os.LookupEnv in production).
	// ZIMMER_PUBLIC_URL and ZIMMER_API_KEY resolve to PublicURL and Token; any other variable
	// must be in Allowed (empty: any) and never one of Zimmer's own (config.Reserved). Entries
	// the working directory's own file carries are the repository's and are never expanded.
	Lookup  func(string) (string, bool)
	Allowed []string
	// Previous are the entries Zimmer wrote into this file on an earlier prepare (RuntimeConfig's
	// Written). They are dropped before the config is built again, so a server removed from the
	// session is really gone, while every other entry (the repository's own) is kept.
	Previous []string
	// OAuthTokens are the selected OAuth servers' access tokens (renewed before each turn). A
	// runtime with a credential store of its own gets them there (credstore.go), located from
	// AgentEnv, the agent process's environment; the others (and any runtime when AgentEnv is
	// nil) get them as the server's Authorization header.
	OAuthTokens map[string]OAuthToken
	AgentEnv    func(string) string
}

// RuntimeConfig is what WriteRuntimeConfig wrote.
type RuntimeConfig struct {
	Path     string   // the file written
	Injected []string // entries Zimmer added itself, for custom_metadata.injected_mcp_servers
	// Written are every entry Zimmer put in the file (selected catalog servers and injected
	// ones), sorted: the next prepare's Previous.
	Written []string
	// Env is process-level environment for the agent CLI: Claude's MCP_TIMEOUT and
	// NPM_CONFIG_CACHE (Codex and Pi take everything per entry).
	Env      map[string]string
	Warnings []string
}

// UnresolvedError is a ${VAR} the prepare cannot fill: one with no value and no default
// (Variables), or one a catalog entry may not read at all (Refused: Zimmer's own secrets, or a
// name outside the allow-list). The whole prepare fails (failure_reason
// air_secret_unresolvable), before the agent gets a server that cannot work.
type UnresolvedError struct{ Variables, Refused []string }

func (e *UnresolvedError) Error() string {
	var parts []string
	if len(e.Variables) > 0 {
		parts = append(parts, "MCP config needs environment variables that are not set: "+strings.Join(e.Variables, ", "))
	}
	if len(e.Refused) > 0 {
		parts = append(parts, "MCP config names environment variables an MCP server may not read: "+strings.Join(e.Refused, ", ")+
			" (Zimmer's own settings never reach one; others must be listed in ZIMMER_MCP_VARIABLES)")
	}
	return strings.Join(parts, "; ")
}

// ErrSymlink is a config path in the working directory that is a symbolic link: Zimmer neither
// reads nor writes the fleet's key through a link a repository planted.
var ErrSymlink = errors.New("is a symbolic link")

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
// §4.6) on every prepare: the entries an earlier prepare wrote (req.Previous) are dropped, the
// rest of the file (the repository's own) wins entry by entry, the selected catalog
// servers are added, zimmer and zimmer-self-session are injected by the seed's collision rules,
// every zimmer* entry is pointed at this instance and stamped with the session, ${VAR}s are
// resolved, npx servers get their caches pinned and each runtime its startup budget.
func (c *Catalog) WriteRuntimeConfig(req RuntimeConfigRequest) (RuntimeConfig, error) {
	rules, ok := runtimes[req.Runtime]
	if !ok {
		return RuntimeConfig{}, fmt.Errorf("write MCP config: %w %q", ErrUnknownRuntime, req.Runtime)
	}
	rel := rules.format.rel()
	out := RuntimeConfig{Path: filepath.Join(req.WorkDir, rel), Env: map[string]string{}}
	root, err := os.OpenRoot(req.WorkDir)
	if err != nil {
		return RuntimeConfig{}, fmt.Errorf("write MCP config: %w", err)
	}
	defer root.Close()
	doc, servers, err := readConfig(rules.format, root, rel)
	if err != nil {
		return RuntimeConfig{}, err
	}
	for _, name := range req.Previous {
		delete(servers, name)
	}
	fromCatalog, warnings := c.seedSelected(servers, req.Servers)
	out.Warnings = warnings
	if err := resolvePlaceholders(fromCatalog, req.lookup()); err != nil {
		return RuntimeConfig{}, err
	}
	store, storePath := req.credentialStore()
	stored := map[string]OAuthToken{}
	for id, tok := range req.OAuthTokens {
		s, ok := fromCatalog[id]
		switch {
		case !ok:
		case storePath != "":
			stored[id] = tok
		default:
			if s.Headers == nil {
				s.Headers = map[string]string{}
			}
			s.Headers["Authorization"] = "Bearer " + tok.AccessToken
		}
	}
	out.Injected = c.inject(servers, req)
	out.Written = append(slices.Collect(maps.Keys(fromCatalog)), out.Injected...)
	slices.Sort(out.Written)
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
	if err := writeInTree(root, rel, data); err != nil {
		return RuntimeConfig{}, fmt.Errorf("write MCP config: %w", err)
	}
	if len(stored) > 0 {
		// The key is computed from the entry as written, so this comes after the last change to it.
		if err := writeCredentialStore(store, storePath, servers, stored); err != nil {
			return RuntimeConfig{}, fmt.Errorf("write the MCP OAuth tokens into %s: %w", storePath, err)
		}
	}
	return out, nil
}

// credentialStore is the runtime's own MCP OAuth token store and its file ("" when the runtime
// has none, or its environment was not given).
func (r RuntimeConfigRequest) credentialStore() (credentialStore, string) {
	store, ok := credentialStores[r.Runtime]
	if !ok || r.AgentEnv == nil {
		return credentialStore{}, ""
	}
	return store, store.path(r.AgentEnv)
}

// lookup is what a catalog placeholder may resolve to: this instance's URL, the session's token, and the
// environment's allowed, non-reserved variables. A refused name reports ok with refused set.
func (r RuntimeConfigRequest) lookup() variableLookup {
	return placeholderRules(strings.TrimRight(r.PublicURL, "/"), r.Token, r.Allowed, r.Lookup)
}

// placeholderRules is the one rule for what a catalog ${VAR} may become: ZIMMER_PUBLIC_URL is
// this instance's and ZIMMER_API_KEY the session's token (never a fleet key); any other of
// Zimmer's own names, or a name outside a non-empty allow-list, is refused; the rest come from
// lookup (nil: nothing resolves).
func placeholderRules(publicURL, token string, allowed []string, lookup func(string) (string, bool)) variableLookup {
	own := map[string]string{"ZIMMER_PUBLIC_URL": publicURL, "ZIMMER_API_KEY": token}
	return func(name string) (value string, ok, refused bool) {
		if v, ok := own[name]; ok {
			return v, true, false
		}
		if config.Reserved(name) || (len(allowed) > 0 && !slices.Contains(allowed, name)) {
			return "", false, true
		}
		if lookup == nil {
			return "", false, false
		}
		v, ok := lookup(name)
		return v, ok, false
	}
}

func readConfig(f configFormat, root *os.Root, rel string) (map[string]any, map[string]*Server, error) {
	data, err := readInTree(root, rel)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{}, map[string]*Server{}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read MCP config: %w", err)
	}
	doc, servers, err := f.decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", rel, err)
	}
	return doc, servers, nil
}

// noLinks refuses rel when any of its components under root is a symbolic link. The os.Root
// keeps even a link swapped in after the check inside the working directory.
func noLinks(root *os.Root, rel string) error {
	prefix := ""
	for part := range strings.SplitSeq(filepath.ToSlash(rel), "/") {
		prefix = filepath.Join(prefix, part)
		info, err := root.Lstat(prefix)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %w; Zimmer does not follow links in a repository", prefix, ErrSymlink)
		}
	}
	return nil
}

func readInTree(root *os.Root, rel string) ([]byte, error) {
	if err := noLinks(root, rel); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxConfigBytes))
}

// maxConfigBytes bounds a repository's checked-in config as read.
const maxConfigBytes = 4 << 20

// writeInTree writes the config 0600 (it carries the fleet's key and resolved secrets), its
// directory 0700 when Zimmer makes it, never through a link.
func writeInTree(root *os.Root, rel string, data []byte) error {
	if dir := filepath.Dir(rel); dir != "." {
		if err := root.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	if err := noLinks(root, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil { // a checked-in file keeps its mode on truncation
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// catalogOnlyKeys describe an entry to Zimmer and never reach a runtime.
var catalogOnlyKeys = []string{"title", "description", "default_in_roots", "unavailable", "startup_timeout_sec", "oauth", "$schema"}

// seedSelected adds each selected catalog server the file does not already carry (an existing
// entry is never overwritten) and attaches every catalog-declared startup budget. It returns
// the entries it added: the only ones whose placeholders are Zimmer's to resolve.
func (c *Catalog) seedSelected(servers map[string]*Server, selected []string) (map[string]*Server, []string) {
	var warnings []string
	added := map[string]*Server{}
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
			servers[id], added[id] = s, s
		}
		if a.StartupTimeoutSec != nil {
			servers[id].declared = *a.StartupTimeoutSec
		}
	}
	return added, warnings
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

// retarget points every zimmer* entry at this instance with the session's token, keeping its
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
		if req.Token == "" {
			warnings = append(warnings, fmt.Sprintf("MCP server %q will call Zimmer without a credential: no session token was issued", name))
			continue
		}
		s.Headers["X-API-Key"] = req.Token
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
