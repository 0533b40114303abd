package transcript

import (
	"reflect"
	"testing"
)

func TestMCPStatusesFromEachRuntimesStream(t *testing.T) {
	tests := []struct {
		name, line string
		want       []MCPStatus
	}{
		{"Claude's init lists every server", `{"type":"system","subtype":"init","mcp_servers":[{"name":"a","status":"connected"},{"name":"b","status":"failed","error":"Connection closed"},{"name":"c","status":"needs-auth"}]}`,
			[]MCPStatus{{"a", MCPConnected, ""}, {"b", MCPFailed, "Connection closed"}, {"c", MCPNeedsAuth, ""}}},
		{"Codex says a server did not start", "{\"type\":\"error\",\"message\":\"MCP client for `docs` failed to start: handshaking: timed out\"}",
			[]MCPStatus{{"docs", MCPFailed, "handshaking: timed out"}}},
		{"Codex calls a tool on a server", `{"type":"item.completed","item":{"type":"mcp_tool_call","server":"docs","tool":"search"}}`,
			[]MCPStatus{{"docs", MCPConnected, ""}}},
		{"Pi's adapter could not connect; the server's stderr rides at the end", `{"type":"tool_execution_end","toolName":"mcp","result":{"content":[{"type":"text","text":"Failed to connect"}],"details":{"mode":"connect","error":"connect_failed","server":"bd","message":"MCP error -32000: Connection closed (BrightData: Invalid API key - authentication failed)"}},"isError":false}`,
			[]MCPStatus{{"bd", MCPFailed, "Server stderr: BrightData: Invalid API key - authentication failed | MCP error -32000: Connection closed"}}},
		{"Pi's adapter could not connect, nothing on stderr", `{"type":"tool_execution_end","toolName":"mcp","result":{"details":{"mode":"call","error":"connect_failed","server":"docs","tool":"search","message":"spawn node ENOENT"}}}`,
			[]MCPStatus{{"docs", MCPFailed, "spawn node ENOENT"}}},
		{"Pi meets an earlier failure again (its text, never read as stderr)", `{"type":"tool_execution_end","toolName":"docs_search","result":{"content":[{"type":"text","text":"MCP server \"docs\" not available (failed 3s ago)"}],"details":{"error":"server_unavailable","server":"docs"}}}`,
			[]MCPStatus{{"docs", MCPFailed, `MCP server "docs" not available (failed 3s ago)`}}},
		{"Pi's server needs OAuth", `{"type":"tool_execution_end","toolName":"mcp","result":{"details":{"mode":"call","error":"auth_required","server":"notes","tool":"whoami","message":"Server \"notes\" requires OAuth authentication."}}}`,
			[]MCPStatus{{"notes", MCPNeedsAuth, `Server "notes" requires OAuth authentication.`}}},
		{"Pi calls a tool on a server", `{"type":"tool_execution_end","toolName":"mcp","result":{"details":{"mode":"call","server":"docs","tool":"search"}}}`,
			[]MCPStatus{{"docs", MCPConnected, ""}}},
		{"Pi's tool answered with an error: the server is up", `{"type":"tool_execution_end","toolName":"docs_search","result":{"details":{"error":"tool_error","server":"docs","tool":"search"}}}`,
			[]MCPStatus{{"docs", MCPConnected, ""}}},
		{"Pi lists cached tools: nothing about the connection", `{"type":"tool_execution_end","toolName":"mcp","result":{"details":{"mode":"list","server":"docs","tools":["docs_search"],"count":1}}}`, nil},
		{"Pi's other tools", `{"type":"tool_execution_end","toolName":"bash","result":{"content":[{"type":"text","text":"ok"}],"details":{}}}`, nil},
		{"any other line", `{"type":"assistant","message":{"content":[]}}`, nil},
	}
	for _, tt := range tests {
		ev := Parse(1, 1, []byte(tt.line))
		if !reflect.DeepEqual(ev.MCP, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, ev.MCP, tt.want)
		}
		if ev.MCP != nil && ev.Error != "" {
			t.Errorf("%s: a server that did not start is not the turn's error: %q", tt.name, ev.Error)
		}
	}
}
