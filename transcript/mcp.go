package transcript

import (
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
// start as an error event and a connected one by a tool call made on it.
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
	case typ == "item.completed":
		item, _ := m["item"].(map[string]any)
		if server, _ := item["server"].(string); item["type"] == "mcp_tool_call" && server != "" {
			return []MCPStatus{{Server: server, Status: MCPConnected}}
		}
	}
	return nil
}
