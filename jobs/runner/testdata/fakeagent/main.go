// Command fakeagent stands in for the Claude Code, Codex and Pi CLIs in the runner's tests and
// the load check. It accepts each CLI's flags as the runner passes them, prints a plausible
// JSONL transcript in that CLI's format (with usage objects), and, in a turn (not in a one-shot
// question), acts on instruction lines in its prompt:
//
//	CALL <tool> <json args>   call the tool on an MCP server from its own config file
//	                          (.mcp.json / --mcp-config, or .codex/config.toml)
//	SLEEP <seconds>           sleep (fractions allowed)
//	AWAIT <path>              wait until the file exists (a test's cue, not a timer that a
//	                          loaded machine can outrun)
//	EXIT <code>               exit with the code
//	BIGLINE <bytes>           print one stdout line of that many bytes
//	FAIL <class> [always]     end the turn the way the real CLI does on that trouble (rate_limit,
//	                          overloaded, auth, context: the runtime's own error lines and exit
//	                          code; crash: SIGKILL itself); "always" makes every later turn in
//	                          this working directory fail the same way. A context overflow
//	                          stops once the conversation was compacted: Claude's "/compact"
//	                          prompt, or a new conversation after the overflow (Codex, Pi)
//	ELICIT <ttl ms> <message> ask the human over the ELICITATION_* endpoints, as an MCP server
//	                          under the agent would, and poll until answered or expired
//	SAVE <name> <regexp>      keep the regexp's first group, matched in the last tool result
//
// ${name} in a line is a value SAVE kept, else the environment's (ZIMMER_SESSION_ID), so a
// script can use what an earlier call returned (the id of a session it started).
//
// Like the real CLIs it ends gracefully on SIGTERM: the action under way finishes (a tool call
// prints its result), a sleep is cut short, and it exits with 143.
//
// It reports each configured MCP server's connection the way the runtime does: Claude's init
// event lists every server with its status, Codex prints an error event for a server that did
// not start, Pi's MCP adapter answers the agent's first call on each server (a result naming the
// server, with connect_failed or auth_required when it could not reach it). A server is connected unless its entry's env sets FAKEAGENT_MCP_STATUS (failed,
// needs-auth) and, for the failure's words, FAKEAGENT_MCP_ERROR; FAKEAGENT_MCP_CONNECTED_AFTER
// there names a file whose presence makes it connect after all.
//
// It answers --version and the login checks (`auth status`, `login status`) as the status probe
// asks them.
//
// With FAKEAGENT_LOG set it appends one JSON line per invocation (argv, working directory, its
// whole environment, the names of the MCP servers in its config) to that file.
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"
)

type invocation struct {
	runtime, prompt, sessionID, configPath, model string
	resume                                        bool
	// oneShot: a question asked without leave to act (Claude without
	// --dangerously-skip-permissions, Codex in a read-only sandbox, Pi without --approve), as
	// the runner asks for a title or a status summary. It only answers: the instruction lines
	// its prompt quotes (a session's own script, in a title or summary prompt) are not run, so
	// a session scripted to sleep does not hold the inference lane for as long.
	oneShot bool
}

func main() {
	if code, probed := probe(os.Args[1:]); probed {
		os.Exit(code)
	}
	inv := parse(os.Args[1:])
	logInvocation(inv)
	out := newPrinter(inv)
	signal.Notify(out.term, syscall.SIGTERM)
	out.start()
	code := 0
	var lines []string
	if !inv.oneShot {
		lines = strings.Split(inv.prompt, "\n")
	}
	if overflowed, err := os.ReadFile(overflowMarker); err == nil && string(overflowed) != inv.sessionID {
		_ = os.WriteFile(compactedMarker, nil, 0o600) // a new conversation starts with room
	}
	if class, err := os.ReadFile(failMarker); err == nil {
		lines = []string{"FAIL " + string(class) + " always"}
	} else if inv.prompt == "/compact" {
		_ = os.WriteFile(compactedMarker, nil, 0o600)
		out.emit(map[string]any{"type": "system", "subtype": "compact_boundary", "session_id": inv.sessionID,
			"compact_metadata": map[string]any{"trigger": "manual", "pre_tokens": 210000}})
	}
	for _, line := range lines {
		if c, stop := out.act(out.expand(strings.TrimSpace(line))); stop {
			code = c
			break
		}
		if out.terminated() {
			code = 143
			break
		}
	}
	out.finish()
	os.Exit(code)
}

// probe answers the status probes the CLIs have — --version, and Claude's `auth status` and
// Codex's `login status` (logged in unless FAKEAGENT_LOGGED_OUT is set) — without logging an
// invocation, since they are no turn.
func probe(args []string) (code int, probed bool) {
	switch {
	case slices.Equal(args, []string{"--version"}):
		fmt.Println("fakeagent 1.2.3")
		return 0, true
	case slices.Equal(args, []string{"auth", "status"}), slices.Equal(args, []string{"login", "status"}):
		if os.Getenv("FAKEAGENT_LOGGED_OUT") != "" {
			fmt.Println("Not logged in")
			return 1, true
		}
		fmt.Println("Logged in")
		return 0, true
	}
	return 0, false
}

func parse(args []string) invocation {
	inv := invocation{runtime: "claude_code", oneShot: !slices.ContainsFunc(args, func(a string) bool {
		return a == "--dangerously-skip-permissions" || a == "--dangerously-bypass-approvals-and-sandbox" || a == "--approve"
	})}
	switch {
	case len(args) > 0 && args[0] == "exec":
		inv.runtime = "codex"
		args = args[1:]
		if len(args) > 1 && args[0] == "resume" {
			inv.resume, inv.sessionID, args = true, args[1], args[2:]
		}
	case slices.Contains(args, "--mode"):
		inv.runtime = "pi"
	}
	for i := 0; i < len(args); i++ {
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch args[i] {
		case "--":
			inv.prompt = strings.Join(args[i+1:], " ")
			i = len(args)
		case "--mcp-config":
			inv.configPath = next()
		case "--session-id":
			inv.sessionID = next()
		case "--resume":
			inv.resume, inv.sessionID = true, next()
		case "--model", "-m":
			inv.model = next()
		case "--output-format", "--mode", "--session-dir":
			next()
		}
	}
	if inv.sessionID == "" {
		inv.sessionID = "thread-" + randomID()
	}
	if inv.configPath == "" {
		inv.configPath = ".mcp.json"
		if inv.runtime == "codex" {
			inv.configPath = filepath.Join(".codex", "config.toml")
		}
	}
	return inv
}

func logInvocation(inv invocation) {
	path := os.Getenv("FAKEAGENT_LOG")
	if path == "" {
		return
	}
	cwd, _ := os.Getwd()
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	line, _ := json.Marshal(map[string]any{"argv": os.Args, "cwd": cwd, "env": env, "runtime": inv.runtime,
		"resume": inv.resume, "session_id": inv.sessionID, "pid": os.Getpid(), "mcp_servers": configured(inv.configPath)})
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}

// printer writes events in the invoking runtime's format.
type printer struct {
	inv    invocation
	enc    *json.Encoder
	term   chan os.Signal    // SIGTERM, once received
	failed bool              // the turn ended on trouble: no success result
	last   string            // the last tool result
	vars   map[string]string // what SAVE kept
}

// Markers in the working directory: failMarker makes every turn fail the way FAIL … always
// said; overflowMarker holds the id of the conversation whose context overflowed,
// compactedMarker says it was compacted since.
const (
	failMarker      = ".fakeagent-fail"
	overflowMarker  = ".fakeagent-overflowed"
	compactedMarker = ".fakeagent-compacted"
)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// troubleWords are each trouble's words in each runtime's dialect.
var troubleWords = map[string]map[string]string{
	"claude_code": {
		"rate_limit": "Claude AI usage limit reached|%d",
		"overloaded": `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		"auth":       "Invalid API key · Please run /login",
		"context":    "Prompt is too long",
	},
	"codex": {
		"rate_limit": "You've hit your usage limit. Upgrade to Pro or try again in 1s.",
		"overloaded": "unexpected status 503 Service Unavailable: upstream connect error",
		"auth":       "unexpected status 401 Unauthorized: Missing bearer authentication in header",
		"context":    "Codex ran out of room in the model's context window. Start a new conversation or clear earlier history before retrying.",
	},
	"pi": {
		"rate_limit": `429 {"type":"error","error":{"type":"rate_limit_error"}} retry after 1 seconds`,
		"overloaded": `529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		"auth":       `401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
		"context":    "prompt is too long: 210000 tokens > 200000 maximum",
	},
}

// fail ends the turn on trouble as the runtime would, and returns its exit code.
func (p *printer) fail(class string) int {
	p.failed = true
	if class == "crash" {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	words := troubleWords[p.inv.runtime][class]
	if strings.Contains(words, "%d") {
		words = fmt.Sprintf(words, time.Now().Add(time.Second).Unix())
	}
	switch p.inv.runtime {
	case "codex":
		p.emit(map[string]any{"type": "error", "message": words})
		p.emit(map[string]any{"type": "turn.failed", "error": map[string]any{"message": words}})
		return 1
	case "pi": // Pi exits 0 even when the model call failed
		p.emit(map[string]any{"type": "message_end", "message": map[string]any{"role": "assistant", "stopReason": "error", "errorMessage": words}})
		p.emit(map[string]any{"type": "agent_end"})
		return 0
	}
	if class == "overloaded" {
		p.emit(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": words}}}})
	}
	p.emit(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": words, "session_id": p.inv.sessionID})
	return 1
}

var reference = regexp.MustCompile(`\$\{(\w+)\}`)

// expand fills ${name} from SAVE's values, then the environment; an unknown name stays as it is.
func (p *printer) expand(line string) string {
	return reference.ReplaceAllStringFunc(line, func(m string) string {
		name := reference.FindStringSubmatch(m)[1]
		if v, ok := p.vars[name]; ok {
			return v
		}
		if v, ok := os.LookupEnv(name); ok {
			return v
		}
		return m
	})
}

func newPrinter(inv invocation) *printer {
	return &printer{inv: inv, enc: json.NewEncoder(os.Stdout), term: make(chan os.Signal, 1), vars: map[string]string{}}
}

// terminated reports whether SIGTERM arrived (and keeps it for the next caller).
func (p *printer) terminated() bool {
	select {
	case sig := <-p.term:
		p.term <- sig
		return true
	default:
		return false
	}
}

func (p *printer) emit(v any) { _ = p.enc.Encode(v) }

func (p *printer) start() {
	statuses := mcpStatuses(p.inv.configPath)
	switch p.inv.runtime {
	case "codex":
		p.emit(map[string]any{"type": "thread.started", "thread_id": p.inv.sessionID})
		for _, st := range statuses {
			if st["status"] != "connected" {
				p.emit(map[string]any{"type": "error", "message": fmt.Sprintf("MCP client for `%s` failed to start: %s", st["name"], st["error"])})
			}
		}
		p.emit(map[string]any{"type": "turn.started"})
	case "pi":
		p.emit(map[string]any{"type": "session", "id": p.inv.sessionID})
		for _, st := range statuses {
			details := map[string]any{"mode": "call", "server": st["name"], "tool": "ping"}
			switch st["status"] {
			case "failed":
				details["error"], details["message"] = "connect_failed", st["error"]
			case "needs-auth":
				details["error"], details["message"] = "auth_required", fmt.Sprintf("Server %q requires OAuth authentication.", st["name"])
			}
			p.piTool("mcp", json.RawMessage(fmt.Sprintf(`{"tool":"%s_ping"}`, st["name"])), "", details)
		}
	default:
		p.emit(map[string]any{"type": "system", "subtype": "init", "session_id": p.inv.sessionID, "model": p.inv.model, "mcp_servers": statuses})
	}
	first, _, _ := strings.Cut(p.inv.prompt, "\n")
	p.say("ack: " + first)
}

func usage() map[string]any {
	return map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 50, "cache_creation_input_tokens": 10}
}

// say is one assistant message (one model request, with its usage).
func (p *printer) say(text string) {
	switch p.inv.runtime {
	case "codex":
		p.emit(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_" + randomID(), "type": "agent_message", "text": text}})
	case "pi":
		p.emit(map[string]any{"type": "message_end", "message": map[string]any{"role": "assistant", "model": p.inv.model,
			"content": []any{map[string]any{"type": "text", "text": text}}, "usage": map[string]any{"input": 100, "output": 20, "cacheRead": 50, "cacheWrite": 10}}})
	default:
		p.emit(map[string]any{"type": "assistant", "session_id": p.inv.sessionID, "message": map[string]any{"id": "msg_" + randomID(),
			"role": "assistant", "model": p.inv.model, "content": []any{map[string]any{"type": "text", "text": text}}, "usage": usage()}})
	}
}

func (p *printer) toolResult(tool string, args json.RawMessage, result string) {
	switch p.inv.runtime {
	case "pi":
		p.piTool(tool, args, result, map[string]any{})
	case "codex":
		p.emit(map[string]any{"type": "item.completed", "item": map[string]any{"type": "mcp_tool_call", "tool": tool,
			"arguments": args, "result": result}})
	default:
		p.emit(map[string]any{"type": "assistant", "session_id": p.inv.sessionID, "message": map[string]any{"id": "msg_" + randomID(),
			"role": "assistant", "model": p.inv.model, "usage": usage(),
			"content": []any{map[string]any{"type": "tool_use", "name": tool, "input": args}}}})
		p.emit(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "content": result}}}})
	}
}

// piTool is one tool execution as Pi's JSON mode prints it.
func (p *printer) piTool(tool string, args json.RawMessage, result string, details map[string]any) {
	id := "call_" + randomID()
	p.emit(map[string]any{"type": "tool_execution_start", "toolCallId": id, "toolName": tool, "args": args})
	p.emit(map[string]any{"type": "tool_execution_end", "toolCallId": id, "toolName": tool, "isError": false,
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": result}}, "details": details}})
}

func (p *printer) finish() {
	if p.failed {
		return
	}
	switch p.inv.runtime {
	case "codex":
		p.emit(map[string]any{"type": "turn.completed", "usage": map[string]any{"input_tokens": 300, "cached_input_tokens": 100, "output_tokens": 40}})
	case "pi":
		p.emit(map[string]any{"type": "agent_end"})
	default:
		p.emit(map[string]any{"type": "result", "subtype": "success", "session_id": p.inv.sessionID, "usage": usage()})
	}
}

// await polls for the file until it exists or SIGTERM arrives (seen by terminated after the line).
func (p *printer) await(path string) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-tick.C:
		case sig := <-p.term:
			p.term <- sig
			return
		}
	}
}

// act runs one prompt line; stop says the agent exits with code.
func (p *printer) act(line string) (code int, stop bool) {
	word, rest, _ := strings.Cut(line, " ")
	switch word {
	case "SLEEP":
		secs, _ := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		select {
		case <-time.After(time.Duration(secs * float64(time.Second))):
		case sig := <-p.term:
			p.term <- sig // seen by terminated after this line
		}
	case "AWAIT":
		p.await(strings.TrimSpace(rest))
	case "BIGLINE":
		n, _ := strconv.Atoi(strings.TrimSpace(rest))
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		_, _ = w.WriteString(`{"type":"assistant","junk":"`)
		for i := 0; i < n; i++ {
			_ = w.WriteByte('x')
		}
		_, _ = w.WriteString("\"}\n")
		_ = w.Flush()
	case "FAIL":
		class, always, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if class == "context" && always != "always" && exists(compactedMarker) {
			return 0, false
		}
		if class == "context" {
			_ = os.WriteFile(overflowMarker, []byte(p.inv.sessionID), 0o600)
		}
		if always == "always" {
			_ = os.WriteFile(failMarker, []byte(class), 0o600)
		}
		return p.fail(class), true
	case "EXIT":
		code, _ = strconv.Atoi(strings.TrimSpace(rest))
		fmt.Fprintf(os.Stderr, "fakeagent: exiting with %d as instructed\n", code)
		return code, true
	case "ELICIT":
		ttl, msg, _ := strings.Cut(strings.TrimSpace(rest), " ")
		answer, err := elicit(ttl, msg, p.term)
		if err != nil {
			answer = "error: " + err.Error()
			fmt.Fprintln(os.Stderr, "fakeagent:", answer)
		}
		p.toolResult("elicitation", json.RawMessage(`{}`), answer)
	case "CALL":
		tool, args, _ := strings.Cut(strings.TrimSpace(rest), " ")
		raw := json.RawMessage(strings.TrimSpace(args))
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		result, err := callTool(p.inv.configPath, tool, raw)
		if err != nil {
			result = "error: " + err.Error()
			fmt.Fprintln(os.Stderr, "fakeagent:", result)
		}
		p.toolResult(tool, raw, result)
		p.last = result
	case "SAVE":
		name, pattern, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if re, err := regexp.Compile(pattern); err == nil {
			if m := re.FindStringSubmatch(p.last); len(m) > 1 {
				p.vars[name] = m[1]
			}
		}
	}
	return 0, false
}

// elicit posts a question to ELICITATION_REQUEST_URL and polls ELICITATION_POLL_URL/<id> every
// 100 ms until the action is no longer pending; it returns the poll response's JSON.
func elicit(ttl, message string, term chan os.Signal) (string, error) {
	id := "fake-" + randomID()
	sid, _ := strconv.ParseInt(os.Getenv("ELICITATION_SESSION_ID"), 10, 64)
	ttlMS, _ := strconv.ParseInt(ttl, 10, 64)
	body, _ := json.Marshal(map[string]any{"_meta": map[string]any{"com.pulsemcp/request-id": id}, "message": message,
		"session_id": sid, "ttl_ms": ttlMS, "requestedSchema": map[string]any{"type": "object"}})
	resp, err := http.Post(os.Getenv("ELICITATION_REQUEST_URL"), "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("ask: HTTP %d", resp.StatusCode)
	}
	for {
		select {
		case sig := <-term:
			term <- sig
			return "", fmt.Errorf("terminated while waiting for an answer")
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get(os.Getenv("ELICITATION_POLL_URL") + "/" + id)
		if err != nil {
			return "", err
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var poll struct{ Action string }
		if json.Unmarshal(data, &poll) == nil && poll.Action != "pending" {
			return string(data), nil
		}
	}
}

// server is an MCP entry of the agent's config, as far as calling it goes.
type server struct {
	name    string
	url     string
	headers map[string]string
}

func servers(path string) ([]server, error) {
	table, headersKey, err := serverTable(path)
	if err != nil {
		return nil, err
	}
	return entries(table, headersKey), nil
}

// serverTable is the config's table of servers and the key its entries keep headers under.
func serverTable(path string) (map[string]any, string, error) {
	var doc map[string]any
	if strings.HasSuffix(path, ".toml") {
		if _, err := toml.DecodeFile(path, &doc); err != nil {
			return nil, "", err
		}
		table, _ := doc["mcp_servers"].(map[string]any)
		return table, "http_headers", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, "", err
	}
	table, _ := doc["mcpServers"].(map[string]any)
	return table, "headers", nil
}

// configured names every server in the config the agent starts with (none when unreadable).
func configured(path string) []string {
	table, _, _ := serverTable(path)
	names := []string{}
	for name := range table {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// mcpStatuses is every configured server's connection as the fake reports it.
func mcpStatuses(path string) []map[string]any {
	table, _, _ := serverTable(path)
	out := []map[string]any{}
	for _, name := range configured(path) {
		e, _ := table[name].(map[string]any)
		env, _ := e["env"].(map[string]any)
		status, _ := env["FAKEAGENT_MCP_STATUS"].(string)
		if after, _ := env["FAKEAGENT_MCP_CONNECTED_AFTER"].(string); after != "" {
			if _, err := os.Stat(after); err == nil {
				status = ""
			}
		}
		st := map[string]any{"name": name, "status": "connected"}
		if status != "" {
			st["status"] = status
			if msg, _ := env["FAKEAGENT_MCP_ERROR"].(string); msg != "" {
				st["error"] = msg
			}
		}
		out = append(out, st)
	}
	return out
}

// entries lists the remote servers, zimmer-self-session first, then zimmer, then the rest.
func entries(table map[string]any, headersKey string) []server {
	var out []server
	for name, v := range table {
		e, _ := v.(map[string]any)
		u, _ := e["url"].(string)
		if u == "" {
			continue
		}
		s := server{name: name, url: u, headers: map[string]string{}}
		h, _ := e[headersKey].(map[string]any)
		for k, v := range h {
			s.headers[k] = fmt.Sprint(v)
		}
		if _, ok := s.headers["Authorization"]; !ok {
			if tok := storedToken(headersKey == "http_headers", name, u); tok != "" {
				s.headers["Authorization"] = "Bearer " + tok
			}
		}
		out = append(out, s)
	}
	rank := map[string]int{"zimmer-self-session": 0, "zimmer": 1}
	slices.SortFunc(out, func(a, b server) int {
		ra, oka := rank[a.name]
		rb, okb := rank[b.name]
		if !oka {
			ra = 2
		}
		if !okb {
			rb = 2
		}
		if ra != rb {
			return ra - rb
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

// storedToken is the OAuth access token the runtime's own credential store holds for the server
// ("" when none): Codex's file under CODEX_HOME, Claude's mcpOAuth under CLAUDE_CONFIG_DIR — as
// the real CLIs send it, matched here by name and URL.
func storedToken(codex bool, name, url string) string {
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	if codex {
		dir = os.Getenv("CODEX_HOME")
	}
	data, err := os.ReadFile(filepath.Join(dir, ".credentials.json"))
	if dir == "" || err != nil {
		return ""
	}
	var doc map[string]json.RawMessage
	_ = json.Unmarshal(data, &doc)
	entries := doc
	if !codex {
		entries = nil
		_ = json.Unmarshal(doc["mcpOAuth"], &entries)
	}
	for _, raw := range entries {
		var e struct {
			ServerName, ServerURL, AccessToken string
			CodexName                          string `json:"server_name"`
			CodexURL                           string `json:"server_url"`
			CodexToken                         string `json:"access_token"`
		}
		_ = json.Unmarshal(raw, &e)
		if codex && e.CodexName == name && e.CodexURL == url {
			return e.CodexToken
		}
		if !codex && e.ServerName == name && e.ServerURL == url {
			return e.AccessToken
		}
	}
	return ""
}

// callTool calls tool on the first server whose tools/list offers it.
func callTool(configPath, tool string, args json.RawMessage) (string, error) {
	list, err := servers(configPath)
	if err != nil {
		return "", fmt.Errorf("read MCP config %s: %w", configPath, err)
	}
	for _, s := range list {
		var tools struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err := s.rpc("tools/list", nil, &tools); err != nil {
			continue
		}
		for _, t := range tools.Tools {
			if t.Name != tool {
				continue
			}
			var res struct {
				IsError bool                    `json:"isError"`
				Content []struct{ Text string } `json:"content"`
			}
			if err := s.rpc("tools/call", map[string]any{"name": tool, "arguments": args}, &res); err != nil {
				return "", err
			}
			var texts []string
			for _, c := range res.Content {
				texts = append(texts, c.Text)
			}
			text := strings.Join(texts, "\n")
			if res.IsError {
				return "", fmt.Errorf("%s: %s", tool, text)
			}
			return text, nil
		}
	}
	return "", fmt.Errorf("no MCP server in %s offers %s", configPath, tool)
}

func (s server) rpc(method string, params any, into any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range s.headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s %s: %d %s", s.name, method, resp.StatusCode, raw)
	}
	if env.Error != nil {
		return fmt.Errorf("%s %s: %s", s.name, method, env.Error.Message)
	}
	return json.Unmarshal(env.Result, into)
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
