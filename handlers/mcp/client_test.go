package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/zimmerhq/zimmer/session"
)

// TestAnMCPClientDrivesTheEndpoint is what an agent runtime does: mcp-go's own streamable-HTTP
// client, configured with nothing but the URL and the key.
func TestAnMCPClientDrivesTheEndpoint(t *testing.T) {
	t.Parallel()
	e := setup(t)
	s := e.fixture(t, func(s *session.Session) { s.Title = ptr("Driven by a client") })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.NewStreamableHttpClient(fmt.Sprintf("%s/mcp?tool_groups=self_session&session_id=%d", e.srv.URL, s.ID),
		transport.WithHTTPHeaders(map[string]string{"X-API-Key": apiKey}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ClientInfo: mcpgo.Implementation{Name: "zimmer-test", Version: "1"},
	}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ServerInfo.Name != "zimmer" || !strings.HasSuffix(init.Instructions, "Enabled tool groups: self_session.") {
		t.Fatalf("initialize result: %+v", init)
	}
	list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != strings.Join(selfTools, ",") {
		t.Fatalf("tools: %v", names)
	}
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "get_session"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	if text := res.Content[0].(mcpgo.TextContent).Text; !strings.Contains(text, "## Session: Driven by a client") {
		t.Fatalf("get_session defaulted to the connection's session? %s", text)
	}
	res, err = c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "action_session", Arguments: map[string]any{"action": "restart"}}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(mcpgo.TextContent).Text, "Invalid arguments: action must be one of") {
		t.Fatalf("a validation failure is a result the model reads: %v %+v", err, res)
	}
	if _, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "start_session"}}); err == nil {
		t.Fatal("a tool outside the scope is a JSON-RPC error")
	}
}

func TestToolCallsAreCountedByToolAndOutcome(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.ok(t, "/mcp", "get_configs", nil)
	e.refused(t, "/mcp", "quick_search_sessions", map[string]any{"per_page": 0}, "Invalid arguments")
	e.post(t, "/mcp", rpc("tools/call", map[string]any{"name": "nope_" + strings.Repeat("x", 5), "arguments": map[string]any{}}))
	e.post(t, "/mcp?tool_groups=health", rpc("tools/call", map[string]any{"name": "get_session", "arguments": map[string]any{}}))
	metrics := e.metricsText(t)
	contains(t, metrics,
		`zimmer_mcp_tool_calls_total{outcome="ok",tool="get_configs"} 1`,
		`zimmer_mcp_tool_calls_total{outcome="tool_error",tool="quick_search_sessions"} 1`,
		`zimmer_mcp_tool_calls_total{outcome="protocol_error",tool="unknown"} 1`,
		`zimmer_mcp_tool_calls_total{outcome="protocol_error",tool="get_session"} 1`,
		`zimmer_mcp_tool_call_duration_seconds_count{tool="get_configs"} 1`)
	if strings.Contains(metrics, "nope_") {
		t.Fatal("an invented tool name must not become a label value")
	}
}
