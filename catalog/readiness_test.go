package catalog

import (
	"context"
	"errors"
	"testing"
)

const readinessMCP = `{
  "plain": {"command": "node"},
  "keyed": {"command": "node", "env": {"TOKEN": "${SET_TOKEN}", "OPT": "${UNSET_OPT:-x}"}},
  "unset": {"command": "node", "args": ["--key=${UNSET_A}"], "env": {"B": "${UNSET_B}", "A": "${UNSET_A}"}},
  "own-name": {"url": "https://h/mcp", "headers": {"K": "${API_KEYS:-none}"}},
  "not-allowed": {"command": "node", "env": {"T": "${OTHER_TOKEN}"}},
  "declared": {"command": "node", "env": {"T": "${UNSET_A}"}, "unavailable": "  Accepts only\nstatic tokens. "},
  "oauth": {"type": "streamable-http", "url": "https://h/mcp", "oauth": {"client_id": "c"}},
  "zimmer-sessions": {"type": "streamable-http", "url": "${ZIMMER_PUBLIC_URL}/mcp", "headers": {"X-API-Key": "${ZIMMER_API_KEY}"}}
}`

func readinessCatalog(t *testing.T) *Catalog {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "roots.json", `{}`)
	write(t, dir, "mcp.json", readinessMCP)
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEachReadinessState(t *testing.T) {
	c := readinessCatalog(t)
	env := map[string]string{"SET_TOKEN": "t", "OTHER_TOKEN": "o", "API_KEYS": "fleet-key"}
	vars := Variables{Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Allowed: []string{"SET_TOKEN", "UNSET_A", "UNSET_B", "UNSET_OPT"}}
	ready := c.Readiness(t.Context(), vars)
	tests := []struct {
		server string
		state  State
		reason string
		blocks bool
	}{
		{"plain", StateNoCredentialRequired, "", false},
		{"keyed", StateReady, "", false},
		{"unset", StateMissingConfiguration, "`UNSET_A`, `UNSET_B` unresolved", true},
		{"own-name", StateMissingConfiguration, "`API_KEYS` not readable by MCP servers (ZIMMER_MCP_VARIABLES)", true},
		{"not-allowed", StateMissingConfiguration, "`OTHER_TOKEN` not readable by MCP servers (ZIMMER_MCP_VARIABLES)", true},
		{"declared", StateDeclaredUnavailable, "Accepts only static tokens.", true},
		{"oauth", StateNeedsAuthorization, "OAuth authorization not completed (set ZIMMER_SECRET_KEY so Zimmer can store OAuth credentials)", true},
		{"zimmer-sessions", StateReady, "", false},
	}
	for _, tt := range tests {
		got := ready[tt.server]
		if got.State != tt.state || got.Reason != tt.reason || got.Blocks() != tt.blocks {
			t.Errorf("%s: got %+v (blocks %v), want %s %q (blocks %v)", tt.server, got, got.Blocks(), tt.state, tt.reason, tt.blocks)
		}
	}
	if len(ready) != len(c.MCPServers) {
		t.Fatalf("every server has an answer: %d of %d", len(ready), len(c.MCPServers))
	}
}

// A variable store that cannot be read is "could not find out": the servers that need it stay
// usable, the others are answered as usual.
func TestAnUnreadableSecretsFileLeavesServersUsable(t *testing.T) {
	c := readinessCatalog(t)
	ready := c.Readiness(t.Context(), Variables{SecretsFile: secretsFile(t, "SET_TOKEN=t\n", 0o644)})
	if r := ready["unset"]; r.State != StateStoreUnavailable || r.Blocks() {
		t.Fatalf("a server with variables: %+v", r)
	}
	if r := ready["plain"]; r.State != StateNoCredentialRequired {
		t.Fatalf("a server without variables: %+v", r)
	}
	if r := ready["declared"]; r.State != StateDeclaredUnavailable {
		t.Fatalf("a declaration comes first: %+v", r)
	}
}

// credentialStates answers the credential contract from a table (readiness's own logic is what
// is under test here; the graph-backed store is tested in orchestrator).
type credentialStates map[string]CredentialState

func (c credentialStates) CredentialState(_ context.Context, server string) (CredentialState, error) {
	st, ok := c[server]
	if !ok {
		return "", errors.New("the store did not answer")
	}
	return st, nil
}

// An OAuth-capable server's state is its stored credential's; a store that cannot answer is
// "could not find out", which never blocks. Servers that are not OAuth-capable never ask.
func TestOAuthReadinessFollowsTheStoredCredential(t *testing.T) {
	mcp := `{
  "oauth": {"type": "streamable-http", "url": "https://h/mcp"},
  "declared-oauth": {"type": "sse", "url": "https://h/sse", "headers": {"X-Trace": "1"}, "oauth": {"client_id": "c"}},
  "keyed-remote": {"type": "streamable-http", "url": "https://h/mcp", "headers": {"X-API-Key": "k"}},
  "bearer-remote": {"type": "streamable-http", "url": "https://h/mcp", "headers": {"authorization": "Bearer k"}, "oauth": {}},
  "local": {"command": "node"}
}`
	dir := t.TempDir()
	write(t, dir, "roots.json", `{}`)
	write(t, dir, "mcp.json", mcp)
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		credential CredentialState // "" : the store fails
		state      State
		reason     string
	}{
		{CredentialNone, StateNeedsAuthorization, "OAuth authorization not completed"},
		{CredentialActive, StateReady, ""},
		{CredentialExpiredRefreshable, StateTokenExpired, ""},
		{CredentialExpired, StateNeedsReauth, "OAuth token expired and cannot be refreshed"},
		{"", StateProbeFailed, ""},
	}
	for _, tt := range tests {
		store := credentialStates{}
		if tt.credential != "" {
			store["oauth"], store["declared-oauth"] = tt.credential, tt.credential
		}
		ready := c.Readiness(t.Context(), Variables{Credentials: store})
		for _, server := range []string{"oauth", "declared-oauth"} {
			if got := ready[server]; got.State != tt.state || got.Reason != tt.reason {
				t.Errorf("%s with credential %q: got %+v, want %s %q", server, tt.credential, got, tt.state, tt.reason)
			}
		}
		for _, server := range []string{"keyed-remote", "bearer-remote", "local"} {
			if got := ready[server]; got.State != StateNoCredentialRequired {
				t.Errorf("%s is not OAuth-capable: %+v", server, got)
			}
		}
	}
}

func TestStatesWithoutALocalSourceYetStillClassify(t *testing.T) {
	for _, tt := range []struct {
		state  State
		blocks bool
	}{{StateTokenExpired, false}, {StateNeedsReauth, true}, {StateProbeFailed, false}} {
		if (Readiness{State: tt.state}).Blocks() != tt.blocks {
			t.Errorf("%s blocks a spawn: %v", tt.state, !tt.blocks)
		}
	}
}

func TestWarningNamesTheServersAndTheWorstStatesConsequence(t *testing.T) {
	ready := map[string]Readiness{
		"fine":     {State: StateReady},
		"unknown":  {State: StateProbeFailed},
		"unset":    {StateMissingConfiguration, "`A` unresolved"},
		"oauth":    {StateNeedsAuthorization, "OAuth authorization not completed"},
		"reauth":   {StateNeedsReauth, "OAuth token expired and cannot be refreshed"},
		"declared": {StateDeclaredUnavailable, "Accepts only static tokens."},
	}
	tests := []struct {
		name    string
		servers []string
		want    string
	}{
		{"every server can start", []string{"fine", "unknown", "not-in-catalog"}, ""},
		{"missing configuration", []string{"fine", "unset"},
			"Zimmer cannot start MCP server(s) unset (`A` unresolved) right now. The session was created anyway, but preparing it is expected to fail outright until the missing value is set; see /connectors."},
		{"needs authorization", []string{"oauth"},
			"Zimmer cannot start MCP server(s) oauth (OAuth authorization not completed) right now. The session was created anyway, but it will park for OAuth authorization before the agent runs; see /connectors."},
		{"needs reauth", []string{"reauth"},
			"Zimmer cannot start MCP server(s) reauth (OAuth token expired and cannot be refreshed) right now. The session was created anyway, but it will park for OAuth authorization before the agent runs; see /connectors."},
		{"declared unavailable", []string{"declared"},
			"Zimmer cannot start MCP server(s) declared (Accepts only static tokens.) right now. The session was created anyway, but the session will run without those tools; see /connectors."},
		{"the worst state present is the one named", []string{"declared", "oauth", "unset"},
			"Zimmer cannot start MCP server(s) declared (Accepts only static tokens.), oauth (OAuth authorization not completed), unset (`A` unresolved) right now. The session was created anyway, but preparing it is expected to fail outright until the missing value is set; see /connectors."},
		{"authorization outranks a declaration", []string{"declared", "reauth"},
			"Zimmer cannot start MCP server(s) declared (Accepts only static tokens.), reauth (OAuth token expired and cannot be refreshed) right now. The session was created anyway, but it will park for OAuth authorization before the agent runs; see /connectors."},
	}
	for _, tt := range tests {
		got := Warning(tt.servers, ready)
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
