// Package config reads Zimmer's configuration from the environment, once, into one validated struct.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is every setting the binary reads. It is built once in main and passed down.
type Config struct {
	HTTPAddr      string   // ZIMMER_HTTP_ADDR
	WorkerAddr    string   // ZIMMER_WORKER_METRICS_ADDR: the worker's /metrics and /up listener
	APIKeys       []string // API_KEYS, comma-separated
	Neo4jURI      string   // NEO4J_URI
	Neo4jUser     string   // NEO4J_USER
	Neo4jPassword string   // NEO4J_PASSWORD
	RedisURL      string   // REDIS_URL
	DataDir       string   // ZIMMER_DATA_DIR
	CatalogDir    string   // ZIMMER_CATALOG_DIR; empty means the catalog built into the binary
	PublicURL     string   // ZIMMER_PUBLIC_URL
	AdminUser     string   // ZIMMER_ADMIN_USER
	ClaudeBin     string   // ZIMMER_CLAUDE_BIN
	CodexBin      string   // ZIMMER_CODEX_BIN
	PiBin         string   // ZIMMER_PI_BIN
	LogLevel      string   // ZIMMER_LOG_LEVEL: debug, info, warn, error
	LogFormat     string   // ZIMMER_LOG_FORMAT: text or json
	// WebUser and WebPassword are the web UI's one HTTP Basic credential (ZIMMER_WEB_USER,
	// ZIMMER_WEB_PASSWORD): both or neither; neither turns the web UI off (its routes answer 503).
	WebUser, WebPassword string
	// SlackSigningSecret verifies POST /slack/events (SLACK_SIGNING_SECRET); unset answers 503.
	SlackSigningSecret string
	// SlackMappedOnly delivers Slack messages only from humans the roster maps
	// (ZIMMER_SLACK_MAPPED_ONLY=1); off, anyone in a bound thread reaches its session.
	SlackMappedOnly bool
	// SlackWorkspaceURL is the workspace's address (ZIMMER_SLACK_WORKSPACE_URL, e.g.
	// https://acme.slack.com): recorded Slack messages carry a permalink built from it. Unset,
	// they carry none.
	SlackWorkspaceURL string
	// MCPVariables are the ${VAR}s catalog MCP entries may read (ZIMMER_MCP_VARIABLES,
	// comma-separated); empty means any variable but Zimmer's own (Reserved).
	MCPVariables []string
	// SecretsFile holds values for catalog ${VAR}s (ZIMMER_SECRETS_FILE: KEY=value lines, mode
	// 0600), asked before the environment. Read at every prepare, never logged.
	SecretsFile string
	// SecretKey seals the MCP servers' OAuth credentials at rest (ZIMMER_SECRET_KEY, 32
	// characters or more); unset, OAuth for MCP servers is off. Never logged.
	SecretKey string
	// PushWebhookURL receives every notification as a JSON POST (ZIMMER_PUSH_WEBHOOK_URL); unset
	// records notifications without delivering them. It may carry a secret (a token in its path or
	// query), so it is never logged nor quoted in an error.
	PushWebhookURL string
	// GitHubToken and GitHubAPIURL are what the github_label / github_issue conditions are
	// polled with (ZIMMER_GITHUB_TOKEN, ZIMMER_GITHUB_API_URL, default https://api.github.com).
	// The token is sent as a header and never logged.
	GitHubToken, GitHubAPIURL string
	ShutdownGrace             time.Duration
	// WorkspaceBudget is the bytes the workspaces may take before clean clones of resting
	// sessions are evicted (ZIMMER_WORKSPACE_BUDGET_GB); 0 means no budget.
	WorkspaceBudget int64
	// SpotUtilization is a hand-set utilization per runtime account pool, 5-hour and weekly
	// percent (ZIMMER_SPOT_UTILIZATION, e.g. claude_code=35/60); SpotTokenBudgets has the spot
	// gate read utilization off the token ledger instead, against each pool's tokens per window
	// (ZIMMER_SPOT_TOKEN_BUDGETS, e.g. claude_code=40000000/400000000). At most one is set; with
	// neither the gate has no reading and is open on utilization.
	SpotUtilization  map[string][2]float64
	SpotTokenBudgets map[string][2]int64
	// FleetScope narrows what acts on the whole fleet (the worker's sweeps and schedule
	// triggers, the health actions) to sessions and triggers that mention it, and turns the
	// graph-wide backlog job off, for processes that share a graph with others
	// (ZIMMER_FLEET_SCOPE; blank acts on everything).
	FleetScope string
}

// Variables lists every environment variable Load reads; docker-compose.yml is checked against it.
var Variables = []string{
	"ZIMMER_HTTP_ADDR", "ZIMMER_WORKER_METRICS_ADDR", "API_KEYS", "NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "REDIS_URL",
	"ZIMMER_DATA_DIR", "ZIMMER_CATALOG_DIR", "ZIMMER_PUBLIC_URL", "ZIMMER_ADMIN_USER",
	"ZIMMER_CLAUDE_BIN", "ZIMMER_CODEX_BIN", "ZIMMER_PI_BIN", "ZIMMER_LOG_LEVEL", "ZIMMER_LOG_FORMAT",
	"ZIMMER_WEB_USER", "ZIMMER_WEB_PASSWORD", "SLACK_SIGNING_SECRET", "ZIMMER_MCP_VARIABLES",
	"ZIMMER_SLACK_MAPPED_ONLY", "ZIMMER_SECRETS_FILE", "ZIMMER_WORKSPACE_BUDGET_GB", "ZIMMER_PUSH_WEBHOOK_URL",
	"ZIMMER_GITHUB_TOKEN", "ZIMMER_GITHUB_API_URL", "ZIMMER_SLACK_WORKSPACE_URL", "ZIMMER_SECRET_KEY",
	"ZIMMER_SPOT_UTILIZATION", "ZIMMER_SPOT_TOKEN_BUDGETS", "ZIMMER_FLEET_SCOPE",
}

// Reserved reports whether an environment variable is Zimmer's own: one Load reads (its keys,
// passwords and store addresses among them) or any other ZIMMER_ one. None of them reaches an
// agent's environment or an MCP config, whatever an allow-list says.
func Reserved(name string) bool {
	return strings.HasPrefix(name, "ZIMMER_") || slices.Contains(Variables, name)
}

// ErrInvalid marks a configuration error; the message names the variable and what to do.
var ErrInvalid = errors.New("invalid configuration")

// Load builds a Config from getenv (os.Getenv in production) and validates it.
// requireKeys is false for commands that serve no API (migrate, worker).
func Load(getenv func(string) string, requireKeys bool) (Config, error) {
	c := Config{
		HTTPAddr:      cmp.Or(getenv("ZIMMER_HTTP_ADDR"), "127.0.0.1:8080"),
		WorkerAddr:    cmp.Or(getenv("ZIMMER_WORKER_METRICS_ADDR"), "127.0.0.1:9091"),
		APIKeys:       splitKeys(getenv("API_KEYS")),
		Neo4jURI:      cmp.Or(getenv("NEO4J_URI"), "bolt://127.0.0.1:7687"),
		Neo4jUser:     getenv("NEO4J_USER"),
		Neo4jPassword: getenv("NEO4J_PASSWORD"),
		RedisURL:      cmp.Or(getenv("REDIS_URL"), "redis://127.0.0.1:6379/0"),
		DataDir:       cmp.Or(getenv("ZIMMER_DATA_DIR"), "./.zimmer"),
		CatalogDir:    getenv("ZIMMER_CATALOG_DIR"),
		AdminUser:     cmp.Or(getenv("ZIMMER_ADMIN_USER"), "tadasant"),
		ClaudeBin:     cmp.Or(getenv("ZIMMER_CLAUDE_BIN"), "claude"),
		CodexBin:      cmp.Or(getenv("ZIMMER_CODEX_BIN"), "codex"),
		PiBin:         cmp.Or(getenv("ZIMMER_PI_BIN"), "pi"),
		LogLevel:      cmp.Or(getenv("ZIMMER_LOG_LEVEL"), "info"),
		LogFormat:     cmp.Or(getenv("ZIMMER_LOG_FORMAT"), "text"),
		ShutdownGrace: 20 * time.Second,
		// Credentials are taken verbatim (no trimming): a password may legitimately hold spaces.
		WebUser:            getenv("ZIMMER_WEB_USER"),
		WebPassword:        getenv("ZIMMER_WEB_PASSWORD"),
		SlackSigningSecret: strings.TrimSpace(getenv("SLACK_SIGNING_SECRET")),
		MCPVariables:       splitKeys(getenv("ZIMMER_MCP_VARIABLES")),
		SecretsFile:        getenv("ZIMMER_SECRETS_FILE"),
		SecretKey:          getenv("ZIMMER_SECRET_KEY"),
		PushWebhookURL:     strings.TrimSpace(getenv("ZIMMER_PUSH_WEBHOOK_URL")),
		GitHubToken:        strings.TrimSpace(getenv("ZIMMER_GITHUB_TOKEN")),
		GitHubAPIURL:       cmp.Or(strings.TrimSpace(getenv("ZIMMER_GITHUB_API_URL")), "https://api.github.com"),
		SlackWorkspaceURL:  strings.TrimSuffix(strings.TrimSpace(getenv("ZIMMER_SLACK_WORKSPACE_URL")), "/"),
		FleetScope:         strings.TrimSpace(getenv("ZIMMER_FLEET_SCOPE")),
	}
	c.PublicURL = cmp.Or(getenv("ZIMMER_PUBLIC_URL"), "http://"+c.HTTPAddr)
	if c.SecretKey != "" && len(c.SecretKey) < 32 {
		return c, fmt.Errorf("%w: ZIMMER_SECRET_KEY must be at least 32 characters (e.g. the output of `openssl rand -hex 32`)", ErrInvalid)
	}
	var err error
	if c.SlackMappedOnly, err = flag(getenv, "ZIMMER_SLACK_MAPPED_ONLY"); err != nil {
		return c, err
	}
	if raw := strings.TrimSpace(getenv("ZIMMER_WORKSPACE_BUDGET_GB")); raw != "" {
		gb, err := strconv.ParseFloat(raw, 64)
		if err != nil || gb < 0 || gb > 1<<20 {
			return c, fmt.Errorf("%w: ZIMMER_WORKSPACE_BUDGET_GB=%q must be a number of gigabytes (e.g. 50), or 0 for no budget", ErrInvalid, raw)
		}
		c.WorkspaceBudget = int64(gb * (1 << 30))
	}
	if c.SpotUtilization, err = pools(getenv, "ZIMMER_SPOT_UTILIZATION", "claude_code=35/60", 100); err != nil {
		return c, err
	}
	budgets, err := pools(getenv, "ZIMMER_SPOT_TOKEN_BUDGETS", "claude_code=40000000/400000000", 1e15)
	if err != nil {
		return c, err
	}
	if budgets != nil && c.SpotUtilization != nil {
		return c, fmt.Errorf("%w: set ZIMMER_SPOT_UTILIZATION or ZIMMER_SPOT_TOKEN_BUDGETS, not both", ErrInvalid)
	}
	for runtime, b := range budgets {
		if c.SpotTokenBudgets == nil {
			c.SpotTokenBudgets = map[string][2]int64{}
		}
		c.SpotTokenBudgets[runtime] = [2]int64{int64(b[0]), int64(b[1])}
	}
	return c, c.validate(requireKeys)
}

// pools reads runtime=a/b pairs, comma-separated, each number in 0..most (unset is nil).
func pools(getenv func(string) string, name, example string, most float64) (map[string][2]float64, error) {
	raw := strings.TrimSpace(getenv(name))
	if raw == "" {
		return nil, nil
	}
	out := map[string][2]float64{}
	for _, part := range strings.Split(raw, ",") {
		runtime, pair, ok := strings.Cut(strings.TrimSpace(part), "=")
		a, b, ok2 := strings.Cut(pair, "/")
		x, errA := strconv.ParseFloat(strings.TrimSpace(a), 64)
		y, errB := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if !ok || !ok2 || runtime == "" || errA != nil || errB != nil || x < 0 || y < 0 || x > most || y > most {
			return nil, fmt.Errorf("%w: %s=%q must be runtime=5-hour/weekly pairs, comma-separated (e.g. %s)", ErrInvalid, name, raw, example)
		}
		out[strings.TrimSpace(runtime)] = [2]float64{x, y}
	}
	return out, nil
}

// flag reads a 1/0 switch; unset is 0.
func flag(getenv func(string) string, name string) (bool, error) {
	raw := strings.TrimSpace(getenv(name))
	on, err := strconv.ParseBool(cmp.Or(raw, "0"))
	if err != nil {
		return false, fmt.Errorf("%w: %s=%q must be 1 or 0", ErrInvalid, name, raw)
	}
	return on, nil
}

// WebEnabled reports whether the web UI has its credential and so is served.
func (c Config) WebEnabled() bool { return c.WebUser != "" && c.WebPassword != "" }

func splitKeys(s string) []string {
	var keys []string
	for k := range strings.SplitSeq(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

func (c Config) validate(requireKeys bool) error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if _, _, err := net.SplitHostPort(c.HTTPAddr); err != nil {
		bad("ZIMMER_HTTP_ADDR=%q is not host:port (e.g. 127.0.0.1:8080)", c.HTTPAddr)
	}
	if _, _, err := net.SplitHostPort(c.WorkerAddr); err != nil {
		bad("ZIMMER_WORKER_METRICS_ADDR=%q is not host:port (e.g. 127.0.0.1:9091)", c.WorkerAddr)
	}
	if u, err := url.Parse(c.SlackWorkspaceURL); c.SlackWorkspaceURL != "" && (err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" || u.User != nil || u.RawQuery != "") {
		bad("ZIMMER_SLACK_WORKSPACE_URL=%q is not a workspace address like https://acme.slack.com", RedactURL(c.SlackWorkspaceURL))
	}
	if requireKeys && len(c.APIKeys) == 0 {
		bad("API_KEYS is empty: set at least one key (comma-separated); `make up` generates one into .zimmer/dev.env")
	}
	for _, k := range c.APIKeys {
		if len(k) < 16 {
			bad("API_KEYS holds a key of %d characters: use keys of at least 16 characters", len(k))
			break
		}
	}
	checkURL(bad, "NEO4J_URI", c.Neo4jURI, "bolt", "neo4j", "bolt+s", "neo4j+s", "bolt+ssc", "neo4j+ssc")
	checkURL(bad, "REDIS_URL", c.RedisURL, "redis", "rediss")
	checkURL(bad, "ZIMMER_PUBLIC_URL", c.PublicURL, "http", "https")
	if c.PushWebhookURL != "" {
		if u, err := url.Parse(c.PushWebhookURL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			bad("ZIMMER_PUSH_WEBHOOK_URL is not an http or https URL with a host (its value is not shown: it may hold a secret)")
		}
	}
	if (c.Neo4jUser == "") != (c.Neo4jPassword == "") {
		bad("NEO4J_USER and NEO4J_PASSWORD must be set together (or both left unset for no auth)")
	}
	if (c.WebUser == "") != (c.WebPassword == "") {
		bad("ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD must be set together (or both left unset to turn the web UI off)")
	}
	for _, v := range c.MCPVariables {
		if Reserved(v) {
			bad("ZIMMER_MCP_VARIABLES names %s, which is Zimmer's own and never reaches an MCP server", v)
		}
	}
	if c.SecretsFile != "" {
		if info, err := os.Stat(c.SecretsFile); err != nil || !info.Mode().IsRegular() {
			bad("ZIMMER_SECRETS_FILE=%q is not a readable file", c.SecretsFile)
		} else if info.Mode().Perm()&0o077 != 0 {
			bad("ZIMMER_SECRETS_FILE=%q has mode %04o; it must be 0600 (chmod 600 it)", c.SecretsFile, info.Mode().Perm())
		}
	}
	if strings.Contains(c.WebUser, ":") {
		bad("ZIMMER_WEB_USER must not contain a colon (HTTP Basic cannot carry one in the user name)")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("ZIMMER_LOG_LEVEL=%q must be one of debug, info, warn, error", c.LogLevel)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		bad("ZIMMER_LOG_FORMAT=%q must be text or json", c.LogFormat)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return nil
}

func checkURL(bad func(string, ...any), name, raw string, schemes ...string) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		bad("%s=%q is not a URL with a host", name, RedactURL(raw))
		return
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return
		}
	}
	bad("%s=%q must use one of the schemes %s", name, RedactURL(raw), strings.Join(schemes, ", "))
}

// RedactURL is raw with the password of its user info masked, for logs and error messages (a
// REDIS_URL carries the Redis password). A string that does not parse as a URL loses everything
// before its last "@" instead, so even a malformed URL never shows its password.
func RedactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return raw
	}
	scheme, _, ok := strings.Cut(raw[:at], "://")
	if !ok || strings.Contains(scheme, "/") {
		return "xxxxx" + raw[at:]
	}
	return scheme + "://xxxxx" + raw[at:]
}
