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
