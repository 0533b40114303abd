// Package mcp is Zimmer's own MCP endpoint, POST /mcp: a stateless streamable-HTTP server (plain
// JSON responses, no Mcp-Session-Id, no SSE) whose tools call the orchestrator in-process, the
// same operations REST calls. mcp-go owns the JSON-RPC framing and version negotiation, except
// for the two requests nearly every call is, answered here as it would: tools/list from a list
// encoded once, and a plain tools/call (a name and arguments, nothing else; see callTool); this
// package owns who may call (the API key, checked by the caller's middleware), what a connection
// may see (the scoped tool list from its URL), argument validation with readable messages, and
// the tools themselves, one file each.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
)

// Deps are what the endpoint needs. ScanBudget bounds a quick_search_sessions content scan;
// zero means DefaultScanBudget.
type Deps struct {
	Ops        *orchestrator.Service
	Log        *slog.Logger
	Metrics    *metrics.Metrics
	ScanBudget time.Duration
}

// Handler serves /mcp. It is safe for concurrent use.
type Handler struct {
	ops        *orchestrator.Service
	log        *slog.Logger
	metrics    *metrics.Metrics
	scanBudget time.Duration
	registry   *registry
	servers    *servers
}

// DefaultScanBudget is how long one search_contents call may scan before it stops and hands
// back a scan_cursor.
const DefaultScanBudget = 8 * time.Second

// New builds the endpoint and its registry.
func New(d Deps) *Handler {
	h := &Handler{ops: d.Ops, log: d.Log, metrics: d.Metrics, scanBudget: d.ScanBudget}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.scanBudget <= 0 {
		h.scanBudget = DefaultScanBudget
	}
	h.registry = newRegistry(h.catalog())
	h.servers = newServers(h)
	return h
}

// Mount registers POST /mcp, and 405s for GET and DELETE, behind auth: a request without a
// valid key is refused before anything MCP happens, on every verb.
func (h *Handler) Mount(r gin.IRoutes, auth gin.HandlerFunc) {
	r.POST("/mcp", auth, h.serve)
	r.GET("/mcp", auth, methodNotAllowed)
	r.DELETE("/mcp", auth, methodNotAllowed)
}

// serve runs the transport checks, answers what it must itself (unknown methods, tools the
// connection was never given), and hands the rest to the scope's prebuilt mcp-go server.
func (h *Handler) serve(c *gin.Context) {
	body, env, rejected := readRequest(c.Request)
	if rejected != nil {
		writeRPCError(c, nil, rejected)
		return
	}
	scope := parseScope(c.Request.URL.Query(), h.log)
	if id, ok := orchestrator.CallerFrom(c.Request.Context()).Session(); ok {
		if e := scope.pin(c.Request.URL.Query(), id); e != nil {
			writeRPCError(c, env.ID, e)
			return
		}
	}
	srv := h.servers.get(scope.Groups)
	if e := h.precheck(env, srv); e != nil {
		writeRPCError(c, env.ID, e)
		return
	}
	if env.Method == "tools/list" && env.Params.Cursor == "" && len(env.ID) > 0 {
		writeResult(c, env.ID, srv.list)
		return
	}
	ctx := withConn(c.Request.Context(), &conn{scope: scope, baseURL: baseURL(c.Request)})
	if env.plainCall() {
		callTool(ctx, c, srv.tools[env.Params.Name], env.ID, env.Params.Arguments)
		return
	}
	req := c.Request.WithContext(ctx)
	req.Body = io.NopCloser(bytes.NewReader(body))
	srv.http.ServeHTTP(noFlush{c.Writer}, req)
}

// callTool answers a plain tools/call without mcp-go, whose dispatch parses the request four
// times over, wraps it in contexts, spans and logs a stateless call has no use for, and encodes
// the page through a map: about a fifth of what get_session adds to the read it wraps. The
// answer is the one mcp-go gives (TestAToolCallAnswersTheSameWithOrWithoutTheTransport holds
// the two to it): 200 and a result of one text content, isError when the tool failed.
func callTool(ctx context.Context, c *gin.Context, run toolRun, id, rawArgs json.RawMessage) {
	text, failed := run(ctx, rawArgs)
	quoted, _ := json.Marshal(text) // a string always encodes (invalid UTF-8 as U+FFFD, as mcp-go's)
	result := make([]byte, 0, len(quoted)+64)
	result = append(result, `{"content":[{"type":"text","text":`...)
	result = append(result, quoted...)
	result = append(result, "}]"...)
	if failed {
		result = append(result, `,"isError":true`...)
	}
	writeResult(c, id, append(result, '}'))
}

// precheck answers the JSON-RPC errors a model never sees: a method this server does not
// implement (-32601) and a tool outside the connection's scope (-32602), which is exactly what
// an unknown tool is.
func (h *Handler) precheck(e *envelope, srv *scopedServer) *rpcError {
	if !methodAllowed(e) {
		return &rpcError{status: http.StatusOK, code: codeMethodNotFound, message: "Method not found", data: e.Method}
	}
	if e.Method == "tools/call" && !srv.has(e.Params.Name) {
		h.observe(e.Params.Name, outcomeProtocolError, 0)
		return &rpcError{status: http.StatusOK, code: codeInvalidParams, message: "Invalid params", data: "Tool not found: " + e.Params.Name}
	}
	return nil
}

// conn is what a tool call knows about its connection.
type conn struct {
	scope   *Scope
	baseURL string
}

type connKey struct{}

func withConn(ctx context.Context, c *conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// connFrom is the call's connection; a call that did not come through serve (none does) would
// see an unscoped, unstamped one.
func connFrom(ctx context.Context) *conn {
	if c, ok := ctx.Value(connKey{}).(*conn); ok {
		return c
	}
	return &conn{scope: &Scope{}}
}

// baseURL is the origin the caller reached, for links in tool output.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
