package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// State is what Zimmer can tell, from local signals only, about whether an MCP server could be
// attached right now. Nothing here contacts a server.
type State string

// The readiness states. Four block a spawn (Blocks); the rest are startable, including the two
// that mean "could not find out".
const (
	StateReady                State = "ready"
	StateNoCredentialRequired State = "no_credential_required"
	StateTokenExpired         State = "token_expired"
	StateStoreUnavailable     State = "store_unavailable"
	StateProbeFailed          State = "probe_failed"
	StateMissingConfiguration State = "missing_configuration"
	StateNeedsAuthorization   State = "needs_authorization"
	StateNeedsReauth          State = "needs_reauth"
	StateDeclaredUnavailable  State = "declared_unavailable"
)

// stateAskCredential is readiness's internal step "the stored OAuth credential decides"; it never
// leaves Readiness.
const stateAskCredential State = "ask_credential"

// Readiness is one server's state and, when it cannot start, the short reason shown beside it.
type Readiness struct {
	State  State
	Reason string // "" when startable
}

// Blocks reports whether a server in this state cannot start.
func (r Readiness) Blocks() bool {
	switch r.State {
	case StateMissingConfiguration, StateNeedsAuthorization, StateNeedsReauth, StateDeclaredUnavailable:
		return true
	}
	return false
}

// Variables is where catalog ${VAR}s are looked up: the secrets file (ZIMMER_SECRETS_FILE), then
// Env (os.LookupEnv), for the names Allowed (ZIMMER_MCP_VARIABLES; empty: any but Zimmer's own).
type Variables struct {
	SecretsFile string
	Env         func(string) (string, bool)
	Allowed     []string
	// Credentials holds the OAuth credentials of OAuth-capable servers; nil when Zimmer cannot
	// store any (no ZIMMER_SECRET_KEY), so every such server needs authorization.
	Credentials CredentialStore
}

// Readiness answers for every catalog server at once (the secrets file is read once).
// Evaluation order: declared unavailable, then a variable store that did not answer, then
// unresolved required variables, then the OAuth credential, then ready.
func (c *Catalog) Readiness(ctx context.Context, v Variables) map[string]Readiness {
	lookup, storeErr := SecretsLookup(v.SecretsFile, v.Env)
	// Zimmer's own two always resolve; their values do not matter to the answer.
	rules := placeholderRules("-", "-", v.Allowed, lookup)
	out := make(map[string]Readiness, len(c.MCPServers))
	for id, a := range c.MCPServers {
		out[id] = a.readiness(rules, storeErr != nil)
		if out[id].State == stateAskCredential {
			out[id] = oauthReadiness(ctx, v.Credentials, id)
		}
	}
	return out
}

func (a *Artifact) readiness(rules variableLookup, storeDown bool) Readiness {
	if a.Unavailable != "" {
		return Readiness{StateDeclaredUnavailable, a.Unavailable}
	}
	required := requiredVariables(a.Raw)
	if len(required) > 0 && storeDown {
		return Readiness{State: StateStoreUnavailable}
	}
	var missing, refused []string
	for _, name := range required {
		if _, ok, no := rules(name); no {
			refused = append(refused, "`"+name+"`")
		} else if !ok {
			missing = append(missing, "`"+name+"`")
		}
	}
	for _, name := range optionalVariables(a.Raw) {
		if _, _, no := rules(name); no { // a default does not make a forbidden name readable
			refused = append(refused, "`"+name+"`")
		}
	}
	if len(missing) > 0 || len(refused) > 0 {
		var parts []string
		if len(missing) > 0 {
			parts = append(parts, strings.Join(missing, ", ")+" unresolved")
		}
		if len(refused) > 0 {
			slices.Sort(refused)
			parts = append(parts, strings.Join(slices.Compact(refused), ", ")+" not readable by MCP servers (ZIMMER_MCP_VARIABLES)")
		}
		return Readiness{StateMissingConfiguration, strings.Join(parts, "; ")}
	}
	if a.OAuthCapable() {
		return Readiness{State: stateAskCredential}
	}
	if len(required) > 0 {
		return Readiness{State: StateReady}
	}
	return Readiness{State: StateNoCredentialRequired}
}

// requiredVariables are the entry's placeholders without a default, sorted and unique; the ones
// with a default are optional.
func requiredVariables(raw map[string]any) []string { return entryVariables(raw, false) }

func optionalVariables(raw map[string]any) []string { return entryVariables(raw, true) }

func entryVariables(raw map[string]any, withDefault bool) []string {
	s := serverFromMap(raw, nil)
	texts := append([]string{s.URL}, s.Args...)
	for _, v := range s.Env {
		texts = append(texts, v)
	}
	for _, v := range s.Headers {
		texts = append(texts, v)
	}
	var names []string
	for _, t := range texts {
		for _, m := range placeholder.FindAllStringSubmatch(t, -1) {
			if (m[2] != "") == withDefault {
				names = append(names, m[1])
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Sentences of a creation warning, by the worst state present.
var consequences = map[State]string{
	StateMissingConfiguration: "preparing it is expected to fail outright until the missing value is set",
	StateNeedsAuthorization:   "it will park for OAuth authorization before the agent runs",
	StateNeedsReauth:          "it will park for OAuth authorization before the agent runs",
	StateDeclaredUnavailable:  "the session will run without those tools",
}

// severity orders the blocking states: the first is the one the caller most has to act on.
var severity = []State{StateMissingConfiguration, StateNeedsAuthorization, StateNeedsReauth, StateDeclaredUnavailable}

// Warning is the sentence a creation path says when some of the session's servers cannot start
// ("" when all can): it names each such server with its reason and the consequence of the worst
// state present. A server the catalog does not hold is not this sentence's to report.
func Warning(servers []string, ready map[string]Readiness) string {
	var named []string
	worst := len(severity)
	for _, id := range servers {
		r, ok := ready[id]
		if !ok || !r.Blocks() {
			continue
		}
		named = append(named, fmt.Sprintf("%s (%s)", id, r.Reason))
		worst = min(worst, slices.Index(severity, r.State))
	}
	if len(named) == 0 {
		return ""
	}
	return fmt.Sprintf("Zimmer cannot start MCP server(s) %s right now. The session was created anyway, but %s; see /connectors.",
		strings.Join(named, ", "), consequences[severity[worst]])
}
