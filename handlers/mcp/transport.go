package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

// The transport rules mcp-go does not enforce the way the contract needs, checked before a
// request reaches it. Every rejection is a JSON-RPC error envelope with id null.

// MaxBodyBytes bounds a request body: mcp-go reads bodies without any limit of its own.
const MaxBodyBytes = 4 << 20

// supportedVersions are the protocol revisions this endpoint serves: the ones with the
// initialize handshake. An absent MCP-Protocol-Version header is read as 2025-03-26.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// rpcError is a transport-level rejection: the HTTP status and the JSON-RPC error it carries.
type rpcError struct {
	status  int
	code    int
	message string
	data    any
}

func (e *rpcError) Error() string { return e.message }

// envelope is the part of a JSON-RPC request the transport looks at.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  params          `json:"params"`
}

// params are a request's parameters as far as the transport reads them. plain says they are
// a name and, at most, arguments: nothing (_meta with a progress token or a newer protocol's
// version, a task, a multi-round-trip state) that only mcp-go knows how to read.
type params struct {
	Name      string
	Cursor    string
	Arguments json.RawMessage
	plain     bool
}

// UnmarshalJSON reads the known fields as mcp-go does (encoding/json matches keys regardless of
// case, so "Name" names the tool for it too); the map of every key says whether that is all.
func (p *params) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	var known struct {
		Name      string          `json:"name"`
		Cursor    string          `json:"cursor"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(data, &known); err != nil {
		return err
	}
	_, named := fields["name"]
	delete(fields, "name")
	delete(fields, "arguments")
	*p = params{Name: known.Name, Cursor: known.Cursor, Arguments: known.Arguments, plain: named && len(fields) == 0}
	return nil
}

// plainCall is a JSON-RPC 2.0 tools/call with an id and plain params: one this package answers
// itself, exactly as mcp-go would (see callTool).
func (e *envelope) plainCall() bool {
	return e.JSONRPC == "2.0" && e.Method == "tools/call" && len(e.ID) > 0 && string(e.ID) != "null" && e.Params.plain
}

// methods is what this server answers; anything else is -32601 before it reaches mcp-go, which
// would otherwise answer prompts/resources methods it was never meant to serve.
var methods = []string{"initialize", "ping", "tools/list", "tools/call"}

func methodAllowed(e *envelope) bool {
	return slices.Contains(methods, e.Method) || strings.HasPrefix(e.Method, "notifications/") || e.Method == ""
}

// readRequest applies the transport checks in the order a client sees them: Accept,
// Content-Type, size, JSON, one object, protocol version.
func readRequest(r *http.Request) ([]byte, *envelope, *rpcError) {
	if !acceptsJSON(r.Header.Values("Accept")) {
		return nil, nil, &rpcError{status: http.StatusNotAcceptable, code: codeInvalidRequest,
			message: "Not Acceptable: Accept header must include application/json"}
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
		return nil, nil, &rpcError{status: http.StatusUnsupportedMediaType, code: codeInvalidRequest,
			message: "Unsupported Media Type: Content-Type must be application/json"}
	}
	body, err := readBounded(r)
	if err != nil {
		return nil, nil, err
	}
	env, err := parseEnvelope(body)
	if err != nil {
		return nil, nil, err
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && env.Method != "initialize" && !slices.Contains(supportedVersions, v) {
		return nil, nil, &rpcError{status: http.StatusBadRequest, code: codeInvalidRequest, message: fmt.Sprintf(
			"Bad Request: Unsupported protocol version: %s. Supported versions: %s", v, strings.Join(supportedVersions, ", "))}
	}
	return body, env, nil
}

var errTooLarge = &rpcError{status: http.StatusRequestEntityTooLarge, code: codeInvalidRequest,
	message: fmt.Sprintf("Payload too large: request body exceeds %d bytes", MaxBodyBytes)}

// readBounded reads at most MaxBodyBytes, refusing a declared or actual larger body with 413.
func readBounded(r *http.Request) ([]byte, *rpcError) {
	if r.ContentLength > MaxBodyBytes {
		return nil, errTooLarge
	}
	var body []byte
	var err error
	if r.ContentLength >= 0 { // declared: read exactly that, without growing a buffer to find it
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	}
	if err != nil {
		return nil, &rpcError{status: http.StatusBadRequest, code: codeParseError, message: "Parse error: could not read the request body"}
	}
	if len(body) > MaxBodyBytes {
		return nil, errTooLarge
	}
	return body, nil
}

// parseEnvelope requires one JSON object: an array is a batch, which the protocol has not
// allowed since 2025-11-25.
func parseEnvelope(body []byte) (*envelope, *rpcError) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return nil, errParse
		}
		return nil, &rpcError{status: http.StatusBadRequest, code: codeInvalidRequest,
			message: "Invalid Request: JSON-RPC body must be a single request object"}
	}
	env := &envelope{}
	if err := json.Unmarshal(trimmed, env); err != nil {
		// Unmarshal checks the whole body is JSON before it decodes any of it.
		if _, invalid := err.(*json.SyntaxError); invalid {
			return nil, errParse
		}
		// Valid JSON of the wrong shape (say, a numeric method): mcp-go reports it precisely.
		return &envelope{}, nil
	}
	return env, nil
}

var errParse = &rpcError{status: http.StatusBadRequest, code: codeParseError, message: "Parse error: Invalid JSON"}

// isJSONMediaType is the Content-Type check for anything but the plain "application/json":
// parameters such as a charset are allowed.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// acceptsJSON is the Accept check: application/json or */* among the offered types.
func acceptsJSON(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "*/*", "application/*":
				return true
			}
		}
	}
	return false
}

// writeRPCError answers with a JSON-RPC error envelope.
func writeRPCError(c *gin.Context, id json.RawMessage, e *rpcError) {
	var rawID any = nil
	if len(id) > 0 {
		rawID = id
	}
	body := gin.H{"code": e.code, "message": e.message}
	if e.data != nil {
		body["data"] = e.data
	}
	c.AbortWithStatusJSON(e.status, gin.H{"jsonrpc": "2.0", "id": rawID, "error": body})
}

// writeResult answers a request with a result encoded ahead of time.
func writeResult(c *gin.Context, id, result json.RawMessage) {
	body := make([]byte, 0, len(result)+len(id)+40)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"result":`...)
	body = append(body, result...)
	body = append(body, '}')
	c.Data(http.StatusOK, "application/json", body)
}

// methodNotAllowed answers GET (there is no server-initiated stream) and DELETE (there is no
// session to terminate) on /mcp.
func methodNotAllowed(c *gin.Context) {
	c.Header("Allow", http.MethodPost)
	writeRPCError(c, nil, &rpcError{status: http.StatusMethodNotAllowed, code: codeInvalidRequest, message: "Method not allowed"})
}

// noFlush hides http.Flusher from mcp-go, which then never upgrades a response to an SSE
// stream: every POST gets exactly one application/json body.
type noFlush struct{ http.ResponseWriter }
