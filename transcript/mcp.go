package transcript

import (
	"cmp"
	"regexp"
	"strings"
)

// MCPStatus is one MCP server's connection state as the runtime reported it in its stream.
type MCPStatus struct {
	Server string
	Status string // MCPConnected, MCPFailed, MCPNeedsAuth, MCPPending
	Error  string // what the runtime said about a failure ("" when it said nothing)
}

// The connection states a runtime reports.
const (
	MCPConnected = "connected"
	MCPFailed    = "failed"
	MCPNeedsAuth = "needs-auth"
	MCPPending   = "pending"
)

// codexStartFailure is Codex's error event for a server that did not start.
var codexStartFailure = regexp.MustCompile("^MCP client for `([^`]+)` failed to start: ?(.*)$")

// mcpStatuses reads the servers' states a line reports: Claude's init event lists every server
// with its status (and, when the CLI has it, the error); Codex reports a server that failed to
// start as an error event and a connected one by a tool call made on it; Pi reports each in the
// result of a tool call that used it (piMCPStatus).
func mcpStatuses(m map[string]any) []MCPStatus {
	typ, _ := m["type"].(string)
	switch {
	case typ == "system" && m["subtype"] == "init":
		list, _ := m["mcp_servers"].([]any)
		var out []MCPStatus
		for _, v := range list {
			e, _ := v.(map[string]any)
			name, _ := e["name"].(string)
			status, _ := e["status"].(string)
			if name == "" || status == "" {
				continue
			}
			msg, _ := e["error"].(string)
			out = append(out, MCPStatus{Server: name, Status: status, Error: msg})
		}
		return out
	case typ == "error":
		msg, _ := m["message"].(string)
		if g := codexStartFailure.FindStringSubmatch(strings.TrimSpace(msg)); g != nil {
			return []MCPStatus{{Server: g[1], Status: MCPFailed, Error: g[2]}}
		}
	case typ == "tool_execution_end":
		return piMCPStatus(m)
	case typ == "item.completed":
		item, _ := m["item"].(map[string]any)
		if server, _ := item["server"].(string); item["type"] == "mcp_tool_call" && server != "" {
			return []MCPStatus{{Server: server, Status: MCPConnected}}
		}
	}
	return nil
}

// Pi has no MCP client of its own and no status event: its MCP servers are reached through the
// pi-mcp-adapter extension, whose servers connect lazily — on the first call — and whose
// start-up connection failures (a fresh metadata cache, eager servers) are printed only on
// stderr, where the first call on the server meets them again. So the closest real signal is
// the one the stream does carry: every result of the adapter's tools (the "mcp" proxy tool and
// the direct tools) names its server in result.details, with a machine-readable error when the
// server could not be reached:
//
//	connect_failed                                                     failed (details.message)
//	server_unavailable, not_connected, server_backoff                  failed (an earlier failure
//	                                                                   met again: the result's text)
//	auth_required                                                      needs-auth
//	no error, or tool_error, on a call (details.tool / resourceUri)    connected: the server answered
//
// Anything else (a disabled server, a cancelled call, a cached listing) says nothing about the
// connection. A server the agent never calls is never reported, which is the adapter's own
// contract: it never starts.
func piMCPStatus(m map[string]any) []MCPStatus {
	result, _ := m["result"].(map[string]any)
	d, _ := result["details"].(map[string]any)
	server, _ := d["server"].(string)
	if server == "" {
		return nil
	}
	kind, _ := d["error"].(string)
	msg, _ := d["message"].(string)
	switch kind {
	case "connect_failed": // the message is the connection's own error, with the server's stderr
		return []MCPStatus{{Server: server, Status: MCPFailed, Error: piStderr(msg)}}
	case "server_unavailable", "not_connected", "server_backoff": // an earlier failure, met again
		return []MCPStatus{{Server: server, Status: MCPFailed, Error: cmp.Or(msg, resultText(result["content"]))}}
	case "auth_required":
		return []MCPStatus{{Server: server, Status: MCPNeedsAuth, Error: cmp.Or(msg, resultText(result["content"]))}}
	case "", "tool_error":
		if d["tool"] != nil || d["resourceUri"] != nil {
			return []MCPStatus{{Server: server, Status: MCPConnected}}
		}
	}
	return nil
}

// piStderr rewrites the adapter's failure into the joined form the failure classifier reads
// ("Server stderr: … | transport error"): the adapter appends a stdio server's last stderr lines
// to the transport's error as a final parenthesised group, "Connection closed (BrightData:
// Invalid API key — …)". Only that final group is taken as stderr, so words in the transport's
// own error never pass for something the server said.
func piStderr(msg string) string {
	i := strings.LastIndex(msg, " (")
	if i < 0 || !strings.HasSuffix(msg, ")") {
		return msg
	}
	return "Server stderr: " + msg[i+2:len(msg)-1] + " | " + msg[:i]
}
