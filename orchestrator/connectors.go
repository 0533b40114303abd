package orchestrator

import (
	"slices"
	"sort"

	"github.com/zimmerhq/zimmer/catalog"
)

// Connector is one catalog MCP server as the Connectors page shows it: its readiness, what a
// human can do about it, and whether it takes the Authorize button.
type Connector struct {
	Name, Title, Description, Type string
	State                          catalog.State
	Reason                         string // why it cannot start ("" when it can)
	Todo                           string
	Authorizable                   bool // OAuth-capable: the Authorize button starts the flow
	Blocks                         bool
}

// connectorTodo is what a human does about each state.
var connectorTodo = map[catalog.State]string{
	catalog.StateReady:                "Nothing to do.",
	catalog.StateNoCredentialRequired: "Nothing to do.",
	catalog.StateTokenExpired:         "Nothing to do: Zimmer renews the token on its own. Authorize again if it keeps failing.",
	catalog.StateStoreUnavailable:     "Zimmer could not read its secrets just now; the server is offered anyway.",
	catalog.StateProbeFailed:          "Zimmer could not find out; the server is offered anyway.",
	catalog.StateMissingConfiguration: "Set the missing value in the secrets file (ZIMMER_SECRETS_FILE) or the environment, and allow it in ZIMMER_MCP_VARIABLES if that list is set.",
	catalog.StateNeedsAuthorization:   "Authorize it: sign in with the server's provider and Zimmer keeps the token.",
	catalog.StateNeedsReauth:          "Authorize it again: its token expired and cannot be renewed.",
	catalog.StateDeclaredUnavailable:  "The catalog declares it unusable here. Fix the server, then remove its unavailable field from mcp.json.",
}

// Connectors lists every catalog MCP server with its readiness, those that cannot start first.
func (s *Service) Connectors() []Connector {
	cat, ready := s.Readiness()
	return connectors(cat, ready, true)
}

// connectors is every catalog server's Connector by name, with the ones that cannot start first
// or last.
func connectors(cat *catalog.Catalog, ready map[string]catalog.Readiness, blockedFirst bool) []Connector {
	out := make([]Connector, 0, len(cat.MCPServers))
	for name, a := range cat.MCPServers {
		r := ready[name]
		typ, _ := a.Raw["type"].(string)
		if typ == "" {
			typ = "stdio"
			if u, _ := a.Raw["url"].(string); u != "" {
				typ = "streamable-http"
			}
		}
		out = append(out, Connector{Name: name, Title: a.Title, Description: a.Description, Type: typ, State: r.State, Reason: r.Reason,
			Todo: connectorTodo[r.State], Authorizable: a.OAuthCapable() && a.Unavailable == "", Blocks: r.Blocks()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Blocks != out[j].Blocks {
			return out[i].Blocks == blockedFirst
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ServerOption is one catalog MCP server in a picker (the new-session form, the session page's
// server form).
type ServerOption struct {
	Connector
	DefaultIn []string // the agent roots that attach it by default
}

// MCPServerOptions is what the MCP-server pickers offer: every catalog server from the same
// readiness answer as get_configs, those that can start first and the rest after them (a
// picker badges them with the reason rather than hiding them: a human can fix most reasons).
func (s *Service) MCPServerOptions() []ServerOption {
	cat, ready := s.Readiness()
	var out []ServerOption
	roots := rootNames(cat)
	for _, c := range connectors(cat, ready, false) {
		o := ServerOption{Connector: c}
		for _, root := range roots {
			if slices.Contains(cat.Roots[root].DefaultMCPServers, c.Name) {
				o.DefaultIn = append(o.DefaultIn, root)
			}
		}
		out = append(out, o)
	}
	return out
}
