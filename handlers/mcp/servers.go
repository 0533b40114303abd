package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// serverVersion is what initialize reports as serverInfo.version.
const serverVersion = "0.1.1"

// maxCachedScopes bounds the cache: scopes are few in practice (the catalog's entries and the
// injected ones), but a URL is the caller's to choose, so an endless supply of distinct group
// lists must not grow memory without bound. Past the bound a scope's server is built per
// request — slower, never wrong.
const maxCachedScopes = 256

// scopedServer is one prebuilt mcp-go server carrying exactly one scope's tools.
type scopedServer struct {
	http  *server.StreamableHTTPServer
	tools map[string]toolRun
	// list is the encoded tools/list result. It never changes for a scope, and encoding ~25
	// schemas is most of what answering tools/list costs, so it is encoded once.
	list json.RawMessage
}

func (s *scopedServer) has(name string) bool { return s.tools[name] != nil }

// servers caches a server per normalized group list (the list, in order, after dropping unknown
// and repeated names), so each scope's tool set is computed and its schemas encoded once.
type servers struct {
	h  *Handler
	mu sync.RWMutex
	by map[string]*scopedServer
}

func newServers(h *Handler) *servers { return &servers{h: h, by: map[string]*scopedServer{}} }

func (s *servers) get(groups []string) *scopedServer {
	key := strings.Join(groups, ",")
	s.mu.RLock()
	srv, ok := s.by[key]
	s.mu.RUnlock()
	if ok {
		return srv
	}
	srv = s.h.build(groups)
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing, ok := s.by[key]; ok {
		return existing
	}
	if len(s.by) < maxCachedScopes {
		s.by[key] = srv
	}
	return srv
}

// build makes the server for one group list: its tools, in catalog order, each handler
// wrapped in validation, error mapping and metrics.
func (h *Handler) build(groups []string) *scopedServer {
	tools := h.registry.resolve(groups)
	out := &scopedServer{tools: map[string]toolRun{}}
	mcpSrv := server.NewMCPServer("zimmer", serverVersion,
		server.WithTitle("Zimmer"),
		server.WithToolCapabilities(false), // a stateless connection has nobody to tell about changes
		server.WithInstructions(instructions(groups)),
		server.WithToolFilter(h.catalogOrder),
		server.WithHooks(h.hooks()),
	)
	entries := make([]server.ServerTool, 0, len(tools))
	listed := make([]mcpgo.Tool, 0, len(tools))
	for _, t := range tools {
		run := h.runner(t)
		out.tools[t.def.name] = run
		tool := h.describe(t)
		entries = append(entries, server.ServerTool{Tool: tool, Handler: bind(run)})
		listed = append(listed, tool)
	}
	mcpSrv.AddTools(entries...)
	list, err := json.Marshal(mcpgo.ListToolsResult{Tools: listed})
	if err != nil {
		panic(fmt.Sprintf("mcp: the tool list does not encode: %v", err)) // static data: found by the tests
	}
	out.list = list
	out.http = server.NewStreamableHTTPServer(mcpSrv,
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
		// Host is validated by whatever fronts the service and the credential is an explicit
		// header, never a cookie, so the localhost DNS-rebinding check only gets in the way.
		server.WithDisableLocalhostProtection(true),
		server.WithStreamableHTTPProtocolVersions(supportedVersions...),
	)
	return out
}

// describe is a tool as tools/list shows it, with annotations that say whether it writes.
func (h *Handler) describe(t resolved) mcpgo.Tool {
	tool := mcpgo.NewToolWithRawSchema(t.def.name, t.variant.description, t.variant.schema.JSON())
	readOnly := !t.def.write
	tool.Annotations = mcpgo.ToolAnnotation{ReadOnlyHint: &readOnly, DestructiveHint: mcpgo.ToBoolPtr(t.def.write)}
	return tool
}

// catalogOrder puts tools/list in registry order (mcp-go sorts by name).
func (h *Handler) catalogOrder(_ context.Context, tools []mcpgo.Tool) []mcpgo.Tool {
	slices.SortStableFunc(tools, func(a, b mcpgo.Tool) int {
		return h.registry.index[a.Name] - h.registry.index[b.Name]
	})
	return tools
}

// hooks count the tools/call failures mcp-go answers itself (malformed params) as protocol
// errors; everything a tool handler answers is counted in bind.
func (h *Handler) hooks() *server.Hooks {
	hooks := &server.Hooks{}
	hooks.AddOnError(func(_ context.Context, _ any, method mcpgo.MCPMethod, message any, _ error) {
		if method != mcpgo.MethodToolsCall {
			return
		}
		name := ""
		if req, ok := message.(*mcpgo.CallToolRequest); ok {
			name = req.Params.Name
		}
		h.observe(name, outcomeProtocolError, 0)
	})
	return hooks
}
