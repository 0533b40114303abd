package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Outcomes of a tools/call, the metric's labels.
const (
	outcomeOK            = "ok"
	outcomeToolError     = "tool_error"
	outcomeProtocolError = "protocol_error"
)

// call is one tool invocation as a tool implementation sees it.
type call struct {
	h     *Handler
	name  string
	args  args
	scope *Scope
	base  string // the origin the caller reached, for links
	self  bool   // reached through the self_session composite only (resolved.self)
}

// toolRun is one tool of a scope, ready to call with a tools/call's raw arguments: they are
// decoded (keeping integer precision) and validated against the variant's schema before the tool
// runs; whatever the tool returns or fails with is its text, failed when it is an error result.
// A tool never fails the JSON-RPC request, since a -32603 is an error the model never reads.
type toolRun func(ctx context.Context, rawArgs json.RawMessage) (text string, failed bool)

func (h *Handler) runner(t resolved) toolRun {
	name, v, self := t.def.name, t.variant, t.self
	return func(ctx context.Context, rawArgs json.RawMessage) (string, bool) {
		start := time.Now()
		text, failed := h.invoke(ctx, name, v, self, rawArgs)
		outcome := outcomeOK
		if failed {
			outcome = outcomeToolError
		}
		h.observe(name, outcome, time.Since(start))
		return text, failed
	}
}

// bind serves a tool to mcp-go, which answers the calls a plain one does not cover.
func bind(run toolRun) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		text, failed := run(ctx, req.Params.RawArguments)
		if failed {
			return mcpgo.NewToolResultError(text), nil
		}
		return mcpgo.NewToolResultText(text), nil
	}
}

// invoke runs one call and returns its text and whether it is an error result.
func (h *Handler) invoke(ctx context.Context, name string, v *variant, self bool, rawArgs json.RawMessage) (text string, failed bool) {
	a, err := decodeArgs(rawArgs)
	if err != nil {
		return err.Error(), true
	}
	if msg := checkArgs(v.schema, a); msg != "" {
		return msg, true
	}
	cn := connFrom(ctx)
	defer func() {
		if p := recover(); p != nil {
			h.log.Error("mcp: tool panicked", "tool", name, "panic", p)
			text, failed = fmt.Sprintf("Internal error calling tool %s: the server failed unexpectedly; the error was logged.", name), true
		}
	}()
	c := &call{h: h, name: name, args: a, scope: cn.scope, base: cn.baseURL, self: self}
	if err := c.pinned(ctx); err != nil {
		return h.errorText(c, err), true
	}
	out, err := v.run(ctx, c)
	if err != nil {
		return h.errorText(c, err), true
	}
	return out, false
}

// decodeArgs reads params.arguments as a JSON object, numbers kept as json.Number so ids above
// 2^53 survive. Absent arguments are an empty object.
func decodeArgs(raw json.RawMessage) (args, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return args{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var a map[string]any
	if err := dec.Decode(&a); err != nil || a == nil {
		return nil, fail("Invalid arguments: arguments must be a JSON object")
	}
	return a, nil
}

// observe records one tools/call. Only registered tool names become label values, so a client
// inventing names cannot grow the label set.
func (h *Handler) observe(name, outcome string, d time.Duration) {
	if h.metrics == nil {
		return
	}
	if !h.registry.known(name) {
		name = "unknown"
	}
	h.metrics.ObserveMCPCall(name, outcome, d)
}
