package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers/rest"
	"github.com/zimmerhq/zimmer/handlers/web"
	"github.com/zimmerhq/zimmer/mcpauth/mcpauthtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// H3: a human message, once recorded, is never changed or removed by any surface. Two proofs:
// statically, no Cypher statement can do it (every statement Zimmer runs lives in queries/);
// dynamically, no HTTP route and no MCP tool (every action of every tool, on every surface) does it.

const (
	insertFile = "insert_human_message.cypher" // the one statement that creates a human message
	deleteFile = "delete_session.cypher"       // the one that removes any: its session's cascade
	// the migration that seals records written before records were hash-chained: it adds the
	// chain fields to a record that has none, and touches nothing else
	chainFile = "chain_human_messages.cypher"
)

var (
	clauseKeyword = regexp.MustCompile(`(?i)\b(ON\s+CREATE\s+SET|ON\s+MATCH\s+SET|OPTIONAL\s+MATCH|DETACH\s+DELETE|ORDER\s+BY|MATCH|CREATE|MERGE|SET|REMOVE|DELETE|WITH|RETURN|UNWIND|WHERE|FOREACH|CALL|LIMIT|SKIP|UNION)\b`)
	nodePattern   = regexp.MustCompile(`\(\s*(\w+)\s*((?::\s*\w+\s*)*)`)
	relPattern    = regexp.MustCompile(`\[\s*(\w+)\s*:\s*(\w+)`)
	humanTarget   = regexp.MustCompile(`HAS_HUMAN_MESSAGE\s*\]\s*->\s*\(\s*(\w+)`)
	itemTarget    = regexp.MustCompile(`^\s*(\w+)\s*(?:\.|\+?=|:)`)
)

// clause is one Cypher clause: its keyword (normalised) and its text up to the next clause.
type clause struct{ keyword, text string }

func clauses(cypher string) []clause {
	locs := clauseKeyword.FindAllStringIndex(cypher, -1)
	out := make([]clause, len(locs))
	for i, loc := range locs {
		end := len(cypher)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		kw := strings.ToUpper(strings.Join(strings.Fields(cypher[loc[0]:loc[1]]), " "))
		out[i] = clause{keyword: kw, text: cypher[loc[1]:end]}
	}
	return out
}

// bindings is what a statement says each variable is: node labels, relationship types, and
// whether it was reached as the target of HAS_HUMAN_MESSAGE.
type bindings struct {
	labels map[string][]string
	rels   map[string]string
	human  map[string]bool
}

func bind(cypher string) bindings {
	b := bindings{labels: map[string][]string{}, rels: map[string]string{}, human: map[string]bool{}}
	for _, m := range nodePattern.FindAllStringSubmatch(cypher, -1) {
		for l := range strings.SplitSeq(m[2], ":") {
			if l = strings.TrimSpace(l); l != "" {
				b.labels[m[1]] = append(b.labels[m[1]], l)
			}
		}
	}
	for _, m := range relPattern.FindAllStringSubmatch(cypher, -1) {
		b.rels[m[1]] = m[2]
	}
	for _, m := range humanTarget.FindAllStringSubmatch(cypher, -1) {
		b.human[m[1]] = true
	}
	return b
}

// provablyNotHuman is true only for a variable the statement itself binds to a node of another
// label, or to a relationship of another type: anything else might be a human message.
func (b bindings) provablyNotHuman(v string) bool {
	if t, ok := b.rels[v]; ok {
		return t != "HAS_HUMAN_MESSAGE"
	}
	return len(b.labels[v]) > 0 && !slices.Contains(b.labels[v], "HumanMessage") && !b.human[v]
}

// topLevelItems splits a clause body at commas outside brackets.
func topLevelItems(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// writes lists the human-message writes a statement could make, as "CREATE", "SET h", ….
func writes(cypher string) []string {
	b := bind(cypher)
	var out []string
	for _, c := range clauses(cypher) {
		switch c.keyword {
		case "CREATE", "MERGE":
			if strings.Contains(c.text, ":HumanMessage") || strings.Contains(c.text, "HAS_HUMAN_MESSAGE") {
				out = append(out, c.keyword)
			}
		case "SET", "REMOVE", "ON CREATE SET", "ON MATCH SET":
			for _, item := range topLevelItems(c.text) {
				m := itemTarget.FindStringSubmatch(item)
				if strings.Contains(item, "HumanMessage") || (m != nil && !b.provablyNotHuman(m[1])) {
					out = append(out, c.keyword+" "+strings.TrimSpace(item))
				}
			}
		case "DELETE", "DETACH DELETE":
			for _, item := range topLevelItems(c.text) {
				if v := strings.TrimSpace(item); !b.provablyNotHuman(v) {
					out = append(out, "DELETE "+v)
				}
			}
		}
	}
	return out
}

func TestNoStatementChangesOrRemovesAHumanMessage(t *testing.T) {
	files, err := fs.Glob(queries.Files, "*.cypher")
	if err != nil || len(files) == 0 {
		t.Fatalf("no statements found: %v", err)
	}
	for _, file := range files {
		text, _ := fs.ReadFile(queries.Files, file)
		got := writes(queries.StripComments(string(text)))
		var want []string
		switch file {
		case insertFile:
			want = []string{"CREATE"} // the CREATE of the node and its HAS_HUMAN_MESSAGE edge, once
		case deleteFile:
			want = []string{"DELETE owned"} // what the session owns, human messages included
		case chainFile:
			want = []string{"SET h.seq = r.seq", "SET h.content_digest = r.content_digest", "SET h.prev_digest = r.prev_digest", "SET h.digest = r.digest"}
			if !strings.Contains(string(text), "WHERE h.digest IS NULL") {
				t.Errorf("%s must seal only records that have no digest yet", file)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s writes human messages as %q; want %q", file, got, want)
		}
	}
}

func TestTheStatementCheckerCatchesWrites(t *testing.T) {
	tests := map[string][]string{
		"MATCH (h:HumanMessage {id: $id}) SET h.content = $c":                        {"SET h.content = $c"},
		"MATCH (s:Session)-[:HAS_HUMAN_MESSAGE]->(m) SET m += $props":                {"SET m += $props"},
		"MATCH (h:HumanMessage) REMOVE h.author":                                     {"REMOVE h.author"},
		"MATCH (h:HumanMessage) DETACH DELETE h":                                     {"DELETE h"},
		"MATCH (s:Session)-[r:HAS_HUMAN_MESSAGE]->() DELETE r":                       {"DELETE r"},
		"MATCH (n) WHERE n.id = 1 SET n.x = 1":                                       {"SET n.x = 1"},
		"MATCH (s:Session) WITH s AS x SET x.title = 't'":                            {"SET x.title = 't'"},
		"MATCH (s:Session) CREATE (s)-[:HAS_HUMAN_MESSAGE]->(:HumanMessage {id: 1})": {"CREATE"},
		"MERGE (h:HumanMessage {id: 1}) ON MATCH SET h.content = 'x'":                {"MERGE", "ON MATCH SET h.content = 'x'"},
		"MATCH (n:Session) SET n:HumanMessage":                                       {"SET n:HumanMessage"},
		"MATCH (s:Session {id: 1}) SET s.title = coalesce($t, s.title), s.x = 1":     nil,
	}
	for cypher, want := range tests {
		if got := writes(cypher); !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q", cypher, got, want)
		}
	}
}

// sweep is the dynamic half: every route, called with plausible input against a session
// whose record holds a message, leaves that record as it was, except that a capture boundary
// may append the admin's words.
type sweep struct {
	h             *humans
	target, actor *session.Session
	before        map[int64][]roster.Message
}

func newSweep(t *testing.T) *sweep {
	// The backlog routes are swept too, and the Connectors page's OAuth routes against a local
	// authorization server.
	as := mcpauthtest.Start(t)
	graphtest.Exclusive(t, "notifications") // the sweep marks every notification read and dismisses them
	dir := t.TempDir()
	for _, name := range []string{"roots.json", "mcp.json"} { // the built-in catalog, plus the OAuth server
		text, err := os.ReadFile(filepath.Join("..", "catalog", "default", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "mcp.json" {
			text = fmt.Appendf(nil, `{%q: {"type": "streamable-http", "url": %q}, %s`, sweepOAuthServer, as.URL(), bytes.TrimPrefix(bytes.TrimSpace(text), []byte("{")))
		}
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h := setupHumans(t, humansOpts{backlog: true, catalogDir: dir,
		oauth: orchestrator.OAuthConfig{SecretKey: "sweep-oauth-secret-key-0123456789abcdef", PublicURL: "http://zimmer.test"}})
	s := &sweep{h: h, target: h.session(t, nil), actor: h.session(t, nil)}
	for _, id := range []int64{s.target.ID, s.actor.ID} {
		s.say(t, id, "the record under test")
	}
	s.before = s.record(t, s.target.ID, s.actor.ID)
	return s
}

func (s *sweep) say(t *testing.T, sessionID int64, words string) {
	t.Helper()
	_, err := s.h.store.RecordHumanMessage(context.Background(), roster.Message{SessionID: sessionID, Author: defaultAdmin,
		Channel: roster.ChannelWebUI, Content: words, OccurredAt: time.Now().Add(-time.Hour), EntryPoint: "web_ui.follow_up"})
	if err != nil {
		t.Fatal(err)
	}
}

func (s *sweep) record(t *testing.T, ids ...int64) map[int64][]roster.Message {
	t.Helper()
	out := map[int64][]roster.Message{}
	for _, id := range ids {
		out[id] = s.h.messages(t, id)
	}
	return out
}

// check compares the record now with before: every earlier message is still there, identical;
// anything new is the admin's, at a web capture entry point, and only when capture is true.
// It reports whether the target's record grew.
func (s *sweep) check(t *testing.T, capture bool) (grew bool) {
	t.Helper()
	for id, was := range s.before {
		now := s.h.messages(t, id)
		if len(now) < len(was) || !slices.EqualFunc(was, now[:len(was)], sameMessage) {
			t.Fatalf("the record of #%d changed:\n was %+v\n now %+v", id, was, now)
		}
		for _, m := range now[len(was):] {
			if !capture || m.Author != defaultAdmin || !strings.HasPrefix(m.EntryPoint, "web_ui.") {
				t.Fatalf("#%d gained %+v on a route that is not a capture boundary", id, m)
			}
		}
		grew = grew || (id == s.target.ID && len(now) > len(was))
		s.before[id] = now
	}
	return grew
}

func sameMessage(a, b roster.Message) bool {
	return a.ID == b.ID && a.SessionID == b.SessionID && a.Author == b.Author && a.Channel == b.Channel &&
		a.Content == b.Content && a.OccurredAt.Equal(b.OccurredAt) && a.EntryPoint == b.EntryPoint &&
		a.SlackUserID == b.SlackUserID && a.SlackChannel == b.SlackChannel && a.SlackPermalink == b.SlackPermalink
}

// uncles is the target's uncle list, to prove a web route never adds one.
func (s *sweep) uncles(t *testing.T) []int64 {
	t.Helper()
	hier, err := s.h.store.Hierarchy(context.Background(), s.target.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range hier.Nodes {
		if n.ID == s.target.ID {
			return n.UncleIDs
		}
	}
	return nil
}

// queued puts a pending message in the target's queue for the :message_id routes.
func (s *sweep) queued(t *testing.T) int64 {
	t.Helper()
	m, _, err := s.h.store.CreateMessage(context.Background(), s.target.ID, session.NewMessage{Content: "queued"})
	if err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// notification records a read notification about the target (read, so it can be dismissed).
func (s *sweep) notification(t *testing.T) int64 {
	t.Helper()
	ctx := context.Background()
	n, _, err := s.h.store.CreateNotification(ctx, graph.NewNotification{SessionID: s.target.ID, Key: graphtest.Unique(t, "sweep"), Type: session.NotifyNeedsInput})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.h.store.MarkNotificationRead(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	return n.ID
}

// webCaptures are the web routes that are capture boundaries.
var webCaptures = []string{"/sessions", "/quick_prompt", "/chat_bubble", "/sessions/:id/follow_up", "/sessions/:id/enqueued_messages",
	"/sessions/:id/enqueued_messages/:message_id/edit"}

// streams reports a live page's event stream.
func streams(path string) bool {
	return strings.HasSuffix(path, "/live") || strings.HasPrefix(path, "/live/")
}

// webCall calls one web route with plausible input, as restCall does for REST: a queued message
// for the :message_id routes, a transcript for the ones that read it, a session of its own for
// the delete (whose cascade is checked).
func (s *sweep) webCall(t *testing.T, route web.Route, forged string) {
	t.Helper()
	key := s.h.user(t).Key // a roster row of the route's own for :key
	target := s.target.ID
	if route.Path == "/sessions/:id/delete" {
		doomed := s.h.session(t, func(d *session.Session) { d.Status = session.StatusArchived })
		s.say(t, doomed.ID, "goes with its session")
		target = doomed.ID
		defer func() {
			if left := s.h.messages(t, doomed.ID); len(left) != 0 {
				t.Errorf("a deleted session's messages must go with it, %d left", len(left))
			}
		}()
	}
	if strings.HasPrefix(route.Path, "/notifications/:id") {
		target = s.notification(t) // the :id of these routes is a notification's
	}
	if readsTranscript(route.Path) {
		s.giveTranscript(t)
	}
	form := url.Values{"prompt": {"typed by a human"}, "content": {"typed by a human"}, "agent_root": {"general-agent"},
		"title": {"Sweep"}, "acting_session_id": {forged}, "key": {key}, "display_name": {"Sweeper"}, "position": {"1"},
		"force": {"true"}, "notes": {"notes"}, "page": {"/sessions"}, "message_index": {"0"}}
	path := strings.ReplaceAll(webPath(route, target, key), "/enqueued_messages/1/", fmt.Sprintf("/enqueued_messages/%d/", s.queued(t)))
	if strings.HasPrefix(route.Path, "/triggers/:id") { // a wake of a session of its own
		sleeper := s.h.session(t, func(d *session.Session) { d.Status = session.StatusNeedsInput })
		text, refused := s.h.tool(t, "wake_me_up_later", map[string]any{"session_id": sleeper.ID, "wake_at": "2031-01-01T00:00:00", "prompt": "p"})
		if refused {
			t.Fatal(text)
		}
		path = strings.ReplaceAll(route.Path, ":id", triggerIDLine.FindStringSubmatch(text)[1])
	}
	if fx := sweepFixtures["web "+route.Method+" "+route.Path]; fx != nil {
		id, fields := fx(t, s)
		path = strings.ReplaceAll(route.Path, ":id", id)
		for k, v := range fields {
			form.Set(k, fmt.Sprint(v))
		}
	}
	var p page
	if route.Method == http.MethodPost {
		p = s.h.post(t, path, form)
	} else {
		if len(form) > 0 {
			path += "?" + form.Encode()
		}
		p = s.h.request(t, route.Method, path, nil)
	}
	if p.status >= 400 {
		t.Fatalf("%d %s: give this route plausible input, so the sweep exercises it", p.status, p.body)
	}
}

func TestNoRouteChangesARecordedHumanMessage(t *testing.T) {
	s := newSweep(t)
	forged := strconv.FormatInt(s.actor.ID, 10)
	// Web routes first, so the REST follow-up's legitimate uncle edge cannot mask a web one.
	for _, route := range web.Routes {
		if streams(route.Path) {
			continue // an event stream never ends; it only reads (live_test.go covers it)
		}
		t.Run("web "+route.Method+" "+route.Path, func(t *testing.T) {
			uncles := s.uncles(t)
			s.webCall(t, route, forged)
			capture := slices.Contains(webCaptures, route.Path)
			grew := s.check(t, capture)
			if capture && strings.HasPrefix(route.Path, "/sessions/:id/") && !grew {
				t.Fatalf("the capture boundary recorded nothing for #%d", s.target.ID)
			}
			if got := s.uncles(t); !slices.Equal(got, uncles) {
				t.Fatalf("a web route changed the uncles of #%d: %v → %v", s.target.ID, uncles, got)
			}
		})
	}
	for _, route := range rest.Routes {
		t.Run("REST "+route.Method+" "+route.Path, func(t *testing.T) {
			s.restCall(t, route, forged)
			_ = s.check(t, false)
		})
	}
	// MCP last: its archive and delete-like actions may leave the target unusable for others.
	surfaces := []string{
		"/mcp?tool_groups=sessions,notifications,triggers,health,gate_decisions,work_backlog",
		fmt.Sprintf("/mcp?tool_groups=self_session&session_id=%d", s.target.ID),
	}
	ran := 0
	for _, surface := range surfaces {
		for _, call := range s.mcpCalls(t, surface, forged) {
			t.Run("MCP "+surface+" "+call.name, func(t *testing.T) {
				status, out := s.h.postJSON(t, http.MethodPost, surface, map[string]any{"jsonrpc": "2.0", "id": 1,
					"method": "tools/call", "params": map[string]any{"name": call.tool, "arguments": call.args}})
				if status != http.StatusOK || out["error"] != nil {
					t.Fatalf("%d %v: a tool call must reach the tool", status, out)
				}
				if result, _ := out["result"].(map[string]any); result["isError"] != true {
					ran++
				}
				_ = s.check(t, false)
			})
		}
	}
	// Refusals prove nothing: most calls must have done their work for the sweep to mean anything.
	if ran < 30 {
		t.Fatalf("only %d MCP calls succeeded; give the tools plausible arguments", ran)
	}
	t.Logf("%d MCP calls succeeded without touching the record", ran)
}

// mcpCall is one tools/call the sweep makes.
type mcpCall struct {
	name, tool string
	args       map[string]any
}

// mcpCalls lists, for every tool a surface offers, one call per value of its action enum (one
// call when it has none), with plausible arguments built from the tool's own input schema.
func (s *sweep) mcpCalls(t *testing.T, surface, forged string) []mcpCall {
	t.Helper()
	status, out := s.h.postJSON(t, http.MethodPost, surface, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
	if status != http.StatusOK {
		t.Fatalf("tools/list on %s: %d %v", surface, status, out)
	}
	var calls []mcpCall
	for _, raw := range out["result"].(map[string]any)["tools"].([]any) {
		tool := raw.(map[string]any)
		name := tool["name"].(string)
		props, _ := tool["inputSchema"].(map[string]any)["properties"].(map[string]any)
		actions := []any{nil}
		if a, ok := props["action"].(map[string]any); ok {
			if enum, ok := a["enum"].([]any); ok {
				actions = enum
			}
		}
		for _, action := range actions {
			args := map[string]any{}
			for prop, schema := range props {
				args[prop] = s.plausible(t, prop, schema.(map[string]any), forged)
			}
			label := name
			if action != nil {
				args["action"] = action
				label += " " + fmt.Sprint(action)
			}
			calls = append(calls, mcpCall{name: label, tool: name, args: args})
		}
	}
	if len(calls) == 0 {
		t.Fatalf("%s offers no tools", surface)
	}
	return calls
}

// plausible is a value of the schema's type (and within its minimum) that names the sweep's
// sessions where a session is meant, so each call reaches its tool's logic rather than failing
// validation.
func (s *sweep) plausible(t *testing.T, prop string, schema map[string]any, forged string) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	sessionish := prop == "id" || strings.HasSuffix(prop, "session_id")
	id := s.target.ID
	if prop == "acting_session_id" || prop == "uncle_session_id" {
		id, _ = strconv.ParseInt(forged, 10, 64)
	}
	switch typeOf(schema) {
	case "integer", "number":
		switch {
		case sessionish:
			return id
		case prop == "message_id":
			return s.queued(t)
		case prop == "category_id":
			return nil
		}
		if low, ok := schema["minimum"].(float64); ok {
			return low
		}
		return 1
	case "boolean":
		return prop == "force"
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	if sessionish {
		return strconv.FormatInt(id, 10)
	}
	return "sent by an agent"
}

// typeOf is a schema's type, the first that is not "null" when it lists several.
func typeOf(schema map[string]any) string {
	switch ty := schema["type"].(type) {
	case string:
		return ty
	case []any:
		for _, v := range ty {
			if v != "null" {
				return fmt.Sprint(v)
			}
		}
	}
	return "string"
} // readsTranscript: routes that need the session to have run (no worker runs in these tests).
func readsTranscript(path string) bool {
	return strings.HasSuffix(path, "/fork") || strings.HasSuffix(path, "/refresh") || strings.HasSuffix(path, "/transcript")
}

// giveTranscript writes the transcript a run would have left and points the target at it.
func (s *sweep) giveTranscript(t *testing.T) {
	t.Helper()
	path := transcript.Path(s.h.dataDir, s.target.ID)
	line := `{"type":"zimmer_turn","turn":1,"reason":"start","prompt":"hi"}` + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.h.store.UpdateSession(context.Background(), s.target.ID, func(u *session.Session) error {
		u.Metadata[session.MetaTranscriptPath] = path
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// restCall calls one REST route with a body that carries every field some route reads.
// triggerCall sends a trigger route plausible input, on a trigger of its own.
func (s *sweep) triggerCall(t *testing.T, route rest.Route) {
	t.Helper()
	body := map[string]any{"name": "Sweep", "agent_root_name": "general-agent", "prompt_template": "sent by a script",
		"trigger_conditions_attributes": []any{map[string]any{"condition_type": "system_event", "configuration": map[string]any{"event_name": "quota_available"}}}}
	status, out := s.h.postJSON(t, http.MethodPost, "/api/v1/triggers", body)
	if status != http.StatusCreated {
		t.Fatalf("%d %v: create the route's trigger", status, out)
	}
	id := int64(out["trigger"].(map[string]any)["id"].(float64))
	if route.Method == http.MethodPatch {
		body = map[string]any{"name": "Sweep again"}
	}
	status, out = s.h.postJSON(t, route.Method, "/api/v1"+strings.ReplaceAll(route.Path, ":id", fmt.Sprint(id)), body)
	if status >= 400 {
		t.Fatalf("%d %v: give this route plausible input, so the sweep exercises it", status, out)
	}
}

func (s *sweep) restCall(t *testing.T, route rest.Route, forged string) {
	t.Helper()
	target := s.target.ID
	if route.Method == http.MethodDelete && route.Path == "/sessions/:id" {
		doomed := s.h.session(t, nil) // deleting the target would end the sweep; its cascade is checked here
		s.say(t, doomed.ID, "goes with its session")
		target = doomed.ID
		defer func() {
			if left := s.h.messages(t, doomed.ID); len(left) != 0 {
				t.Errorf("a deleted session's messages must go with it, %d left", len(left))
			}
		}()
	}
	if strings.HasPrefix(route.Path, "/triggers") {
		s.triggerCall(t, route)
		return
	}
	if strings.HasPrefix(route.Path, "/notifications/:id") {
		target = s.notification(t) // the :id of these routes is a notification's
	}
	path := "/api/v1" + strings.NewReplacer(":id", fmt.Sprint(target), ":message_id", fmt.Sprint(s.queued(t)),
		":uncle_id", forged).Replace(route.Path)
	if readsTranscript(route.Path) {
		s.giveTranscript(t)
	}
	if strings.Contains(path, ":log_id") {
		entry, err := s.h.ops.CreateLog(context.Background(), target, new("info"), new("a timeline line"))
		if err != nil {
			t.Fatal(err)
		}
		path = strings.ReplaceAll(path, ":log_id", entry.ID)
	}
	if strings.Contains(path, ":transcript_id") {
		rec, err := s.h.ops.CreateSubagentTranscript(context.Background(), target, orchestrator.SubagentFields{
			AgentID: orchestrator.Opt[string]{Set: true, Value: new(graphtest.Unique(t, "sweep-agent"))}})
		if err != nil {
			t.Fatal(err)
		}
		path = strings.ReplaceAll(path, ":transcript_id", fmt.Sprint(rec.ID))
	}
	if route.Path == "/health/queued_jobs" {
		path += "?job_class=sweep:nothing-queued" // a preview must be scoped; it reads its query
	}
	if route.Path == "/sessions/search" {
		path += "?q=sweep" // a search must have a phrase; it reads its query
	}
	body := map[string]any{"prompt": "sent by a script", "content": "sent by a script", "acting_session_id": forged,
		"agent_root": "general-agent", "parent_session_id": s.target.ID, "title": "Sweep", "session_notes": "notes",
		"position": 1, "force": true, "message_index": 0, "mcp_servers": []string{}, "session_id": s.target.ID, "message": "sent by a script",
		"job_class": "sweep:nothing-queued", "expected_count": 0}
	if fx := sweepFixtures["REST "+route.Method+" "+route.Path]; fx != nil {
		id, fields := fx(t, s)
		path = "/api/v1" + strings.ReplaceAll(route.Path, ":id", id)
		maps.Copy(body, fields)
	}
	status, out := s.h.postJSON(t, route.Method, path, body)
	if status >= 400 {
		t.Fatalf("%d %v: give this route plausible input, so the sweep exercises it", status, out)
	}
	if created, ok := out["session"].(map[string]any); ok && route.Method == http.MethodPost && route.Path == "/sessions" {
		id := int64(created["id"].(float64))
		if msgs := s.h.messages(t, id); len(msgs) != 0 {
			t.Fatalf("a REST create recorded %q", describe(msgs))
		}
	}
}
