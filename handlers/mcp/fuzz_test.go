package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// The fuzz target's own Redis database: its queues never meet another test's.
const fuzzRedisDB = 15

// fuzzURLs are the connections the fuzzer calls tools on: the default groups, every group
// (opt-in ones included), and a session's own self_session connection ($SID is the fixture).
var fuzzURLs = []string{
	"/mcp",
	"/mcp?tool_groups=sessions,notifications,triggers,health,gate_decisions,work_backlog",
	"/mcp?tool_groups=self_session&session_id=$SID",
}

// FuzzToolsCall calls a tool drawn from a connection's tools/list with fuzzed arguments (the
// raw JSON of params.arguments). Whatever arrives: a well-formed JSON-RPC answer below 500, no
// panic and no unforeseen failure, and a refusal (an isError result or a JSON-RPC error)
// changes nothing. $SID and $OID in the arguments stand for the harness's two sessions.
func FuzzToolsCall(f *testing.F) {
	log, logs := graphtest.NewLogRecorder()
	o := orchestratortest.New(f, orchestratortest.Options{RedisDB: fuzzRedisDB, Log: log})
	// A pull on the fixture's connection starts whatever is queued: hold the backlog, so no
	// other package's backlog test loses an item to it.
	orchestratortest.ExclusiveBacklog(f, o)
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: metrics.New(), Log: log, APIKeys: []string{apiKey}}))
	f.Cleanup(srv.Close)
	e := &env{srv: srv, store: o.Store, queue: o.Queue, ops: o.Ops, dataDir: o.DataDir}
	var (
		fixture, other *session.Session
		dirty          = true
		tools          = map[string][]string{}
	)
	f.Fuzz(func(t *testing.T, urlIndex, toolIndex uint8, arguments string) {
		if dirty {
			fixture, other = graphtest.Session(t, e.store, nil), graphtest.Session(t, e.store, nil)
			dirty = false
		}
		expand := strings.NewReplacer("$SID", strconv.FormatInt(fixture.ID, 10), "$OID", strconv.FormatInt(other.ID, 10)).Replace
		template := fuzzURLs[int(urlIndex)%len(fuzzURLs)]
		path := expand(template)
		if tools[template] == nil {
			tools[template] = e.tools(t, path)
		}
		names := tools[template]
		name := names[int(toolIndex)%len(names)]
		arguments = expand(arguments)
		what := fmt.Sprintf("%s %s(%s)", path, name, truncate(arguments))
		before := fingerprint(t, e.store, fixture.ID, other.ID, arguments)
		r := e.post(t, path, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, name, arguments))
		logged := logs.Take()
		for _, bad := range []string{"panic serving request", "mcp: tool panicked", "mcp: tool failed unexpectedly"} {
			if strings.Contains(logged, bad) {
				t.Fatalf("%s: %q was logged:\n%s", what, bad, logged)
			}
		}
		if r.status >= 500 {
			t.Fatalf("%s: %d %s", what, r.status, truncate(r.raw))
		}
		refused := refusal(t, what, r)
		if !refused {
			dirty = true
			return
		}
		if after := fingerprint(t, e.store, fixture.ID, other.ID, arguments); after != before {
			t.Fatalf("%s was refused (%s) but wrote:\nbefore %s\nafter  %s", what, truncate(r.raw), before, after)
		}
	})
}

// refusal checks the answer is one JSON-RPC response with a result or an error, never an
// unforeseen failure dressed as a result, and says whether the call was refused.
func refusal(t *testing.T, what string, r reply) bool {
	t.Helper()
	if r.status != http.StatusOK && r.status != http.StatusBadRequest {
		t.Fatalf("%s: HTTP %d %s", what, r.status, truncate(r.raw))
	}
	if r.body == nil || r.body["jsonrpc"] != "2.0" {
		t.Fatalf("%s: not a JSON-RPC response: %s", what, truncate(r.raw))
	}
	if e := r.errorOf(); e != nil {
		if _, ok := e["code"].(float64); !ok || e["message"] == nil {
			t.Fatalf("%s: malformed error object: %s", what, truncate(r.raw))
		}
		return true
	}
	var result struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	raw, _ := json.Marshal(r.body["result"])
	if err := json.Unmarshal(raw, &result); err != nil || len(result.Content) == 0 || r.body["result"] == nil {
		t.Fatalf("%s: a result must carry content: %s", what, truncate(r.raw))
	}
	if result.IsError && strings.HasPrefix(result.Content[0].Text, "Internal error") {
		t.Fatalf("%s: an unforeseen failure: %s", what, result.Content[0].Text)
	}
	return result.IsError
}

// fingerprint covers the harness's sessions and every session id the arguments spell.
func fingerprint(t *testing.T, store *graph.Store, fixture, other int64, arguments string) string {
	t.Helper()
	ids := []int64{fixture, other}
	for _, f := range strings.FieldsFunc(arguments, func(r rune) bool { return r < '0' || r > '9' }) {
		if id, err := strconv.ParseInt(f, 10, 64); err == nil && len(ids) < 8 {
			if _, err := store.GetSession(context.Background(), id); err == nil {
				ids = append(ids, id)
			}
		}
	}
	return graphtest.Fingerprint(t, store, ids...)
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
