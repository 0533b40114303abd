package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/handlers"
	"github.com/zimmerhq/zimmer/handlers/handlerstest"
	"github.com/zimmerhq/zimmer/handlers/rest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
)

const apiKey = "test-key-0123456789abcdef"

// redisDB is this package's own Redis database, so its queues are its own.
const redisDB = 3

type env struct {
	srv   *httptest.Server
	store *graph.Store
	queue *tasks.Queue
	ops   *orchestrator.Service
	m     *metrics.Metrics
	// dataDir is where transcripts are read; fleet the label the fleet-wide actions reach.
	dataDir, fleet string
}

func setup(t *testing.T) *env {
	t.Helper()
	return setupWithRedis(t, graphtest.RedisURL(redisDB))
}

func setupWithRedis(t *testing.T, redisURL string) *env {
	t.Helper()
	o := orchestratortest.New(t, orchestratortest.Options{RedisURL: redisURL})
	m := metrics.New()
	srv := httptest.NewServer(handlers.New(handlers.Deps{Ops: o.Ops, Metrics: m, Log: graphtest.Logger(), APIKeys: []string{"another-key-0123456789", apiKey}}))
	t.Cleanup(srv.Close)
	return &env{srv: srv, store: o.Store, queue: o.Queue, ops: o.Ops, m: m, dataDir: o.DataDir, fleet: o.FleetScope}
}

type response struct {
	status int
	body   map[string]any
	raw    string
}

// do calls the server with the fleet's key unless headers are given.
func (e *env) do(t *testing.T, method, path string, body any, headers ...string) response {
	t.Helper()
	if len(headers) == 0 {
		headers = []string{"X-API-Key", apiKey}
	}
	r := handlerstest.Do(t, http.DefaultClient, method, e.srv.URL+path, body, headers...)
	return response{status: r.Status, body: r.Body, raw: r.Raw}
}

func (r response) session(t *testing.T) map[string]any {
	t.Helper()
	s, ok := r.body["session"].(map[string]any)
	if !ok {
		t.Fatalf("no session in %d %s", r.status, r.raw)
	}
	return s
}

func (e *env) create(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	if _, ok := body["git_root"]; !ok {
		if _, ok := body["agent_root"]; !ok {
			body["git_root"] = "file:///tmp/repo"
		}
	}
	r := e.do(t, "POST", "/api/v1/sessions", body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	return r.session(t)
}

func id(s map[string]any) string { return fmt.Sprint(int64(s["id"].(float64))) }

func TestEveryAPIRouteRequiresAValidKey(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	for _, route := range rest.Routes {
		path := "/api/v1" + strings.ReplaceAll(route.Path, ":id", id(s))
		cases := []struct {
			name    string
			headers []string
			want401 bool
		}{
			{"no key", []string{"X-Nothing", ""}, true},
			{"wrong X-API-Key", []string{"X-API-Key", "wrong-key-0123456789abc"}, true},
			{"key prefix only", []string{"X-API-Key", apiKey[:10]}, true},
			{"wrong bearer", []string{"Authorization", "Bearer nope-0123456789abcdef"}, true},
			{"valid X-API-Key", []string{"X-API-Key", apiKey}, false},
			{"valid bearer", []string{"Authorization", "Bearer " + apiKey}, false},
		}
		for _, c := range cases {
			t.Run(route.Method+" "+route.Path+" with "+c.name, func(t *testing.T) {
				method := route.Method
				if !c.want401 && method == http.MethodDelete {
					method = http.MethodGet // do not delete the fixture; GET proves the key is accepted
				}
				r := e.do(t, method, path, nil, c.headers...)
				if c.want401 {
					if r.status != http.StatusUnauthorized || r.body["error"] != "Unauthorized" || r.body["message"] != "Invalid or missing API key" {
						t.Fatalf("want 401 JSON, got %d %s", r.status, r.raw)
					}
				} else if r.status == http.StatusUnauthorized {
					t.Fatalf("a valid key was refused: %s", r.raw)
				}
			})
		}
	}
}

func TestHealthAndMetricsNeedNoKey(t *testing.T) {
	e := setup(t)
	for _, path := range []string{"/up", "/up/deep", "/metrics"} {
		if r := e.do(t, "GET", path, nil, "X-Nothing", ""); r.status != http.StatusOK {
			t.Errorf("%s: %d %s", path, r.status, r.raw)
		}
	}
}

func TestUnmatchedRouteIsJSON404(t *testing.T) {
	e := setup(t)
	r := e.do(t, "GET", "/api/v1/nope", nil)
	if r.status != http.StatusNotFound || r.body["error"] != "Not Found" {
		t.Fatalf("got %d %s", r.status, r.raw)
	}
}

func TestMetricsCountRequestsByRouteTemplate(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	e.do(t, "GET", "/api/v1/sessions/"+id(s), nil)
	r := e.do(t, "GET", "/metrics", nil)
	want := `zimmer_http_requests_total{method="GET",route="/api/v1/sessions/:id",status="200"}`
	if !strings.Contains(r.raw, want) {
		t.Fatalf("metrics lack %s", want)
	}
	if strings.Contains(r.raw, `route="/api/v1/sessions/`+id(s)+`"`) {
		t.Fatal("a raw path with a session id leaked into a label")
	}
	if !strings.Contains(r.raw, "go_goroutines") || !strings.Contains(r.raw, "process_resident_memory_bytes") {
		t.Fatal("Go and process collectors must be registered")
	}
}

func TestCreateSessionRejectsBadInputWithoutWriting(t *testing.T) {
	e := setup(t)
	tests := []struct {
		name    string
		body    any // nil ⇒ JSON of fields
		fields  map[string]any
		status  int
		label   string
		message string
	}{
		{"malformed JSON", `{"prompt": "x"`, nil, 400, "Bad Request", "not a JSON object"},
		{"a JSON array instead of an object", `[1,2]`, nil, 400, "Bad Request", "not a JSON object"},
		{"prompt of the wrong type", nil, map[string]any{"prompt": 42}, 422, "Unprocessable Entity", "prompt must be a string"},
		{"mcp_servers not an array", nil, map[string]any{"mcp_servers": "context7"}, 422, "Unprocessable Entity", "mcp_servers must be an array of strings"},
		{"is_autonomous not a boolean", nil, map[string]any{"is_autonomous": "maybe"}, 422, "Unprocessable Entity", "is_autonomous must be true or false"},
		{"parent_session_id not an integer", nil, map[string]any{"parent_session_id": 1.5}, 422, "Unprocessable Entity", "parent_session_id must be an integer"},
		{"config not an object", nil, map[string]any{"config": []int{1}}, 422, "Unprocessable Entity", "config must be a JSON object"},
		{"unknown agent_root", nil, map[string]any{"agent_root": "nope"}, 422, "Invalid agent_root", `Unknown agent_root "nope"`},
		{"unknown runtime", nil, map[string]any{"agent_runtime": "emacs"}, 422, "Validation failed", `Agent runtime "emacs" is not registered`},
		{"model not offered by the runtime", nil, map[string]any{"config": map[string]any{"model": "gpt-5.4"}}, 422, "Validation failed", "Invalid model gpt-5.4 for claude_code"},
		{"title too long", nil, map[string]any{"title": strings.Repeat("t", 101)}, 422, "Validation failed", "Title is too long (maximum is 100 characters)"},
		{"prompt too long", nil, map[string]any{"prompt": strings.Repeat("p", 500_001)}, 422, "Validation failed", "Prompt is too long (maximum is 500000 characters)"},
		{"goal too long", nil, map[string]any{"goal": strings.Repeat("g", 50_001)}, 422, "Validation failed", "Goal is too long"},
		{"bad scheduling class", nil, map[string]any{"scheduling_class": "urgent"}, 422, "Validation failed", "must be spot or priority"},
		{"other execution provider", nil, map[string]any{"execution_provider": "k8s"}, 422, "Validation failed", "is not supported"},
		{"parent that does not exist", nil, map[string]any{"parent_session_id": 9_000_000_001}, 422, "Validation failed", "Parent session 9000000001 not found"},
		{"unknown MCP server", nil, map[string]any{"mcp_servers": []string{"context7", "ghost"}}, 422, "Validation failed", "mcp_servers names unknown catalog ids: ghost"},
		{"precedence out of range", nil, map[string]any{"precedence": 2_000_000_000}, 422, "Validation failed", "Precedence must be between"},
		{"slug with capitals", nil, map[string]any{"slug": "Not-A-Slug"}, 422, "Validation failed", "Slug must be lowercase"},
		{"neither git_root nor agent_root", nil, map[string]any{"git_root": nil}, 422, "Validation failed", "Git root can't be blank"},
		{"unknown place", nil, map[string]any{"place": "bottom"}, 422, "Validation failed", `place must be "top_of_spot"`},
		{"place with precedence", nil, map[string]any{"place": "top_of_spot", "precedence": 3}, 422, "Validation failed", "mutually exclusive"},
		{"blank idempotency key", nil, map[string]any{"idempotency_key": " "}, 422, "Validation failed", "Idempotency key must be 1 to 255 characters"},
		{"too many MCP servers", nil, map[string]any{"mcp_servers": make([]string, 51)}, 422, "Validation failed", "mcp_servers has 51 entries; at most 50"},
		{"body over 4 MiB", `{"prompt":"` + strings.Repeat("x", 4<<20) + `"}`, nil, 413, "Payload Too Large", "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := graphtest.Unique(t, "bad-input")
			body := tt.body
			if body == nil {
				fields := map[string]any{"git_root": "file:///tmp/repo", "idempotency_key": key}
				for k, v := range tt.fields {
					fields[k] = v
				}
				if fields["git_root"] == nil {
					delete(fields, "git_root")
				}
				if k, ok := fields["idempotency_key"].(string); ok {
					key = k
				}
				body = fields
			}
			r := e.do(t, "POST", "/api/v1/sessions", body)
			if r.status != tt.status || r.body["error"] != tt.label || !strings.Contains(fmt.Sprint(r.body["message"]), tt.message) {
				t.Fatalf("want %d %q containing %q, got %d %s", tt.status, tt.label, tt.message, r.status, truncate(r.raw))
			}
			if _, ok := r.body["messages"].([]any); !ok {
				t.Fatalf("error body must carry messages[]: %s", truncate(r.raw))
			}
			if _, err := e.store.SessionByIdempotencyKey(context.Background(), key); err == nil {
				t.Fatal("a refused create wrote a session")
			}
		})
	}
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestCreateSessionFromAnAgentRootTakesItsDefaults(t *testing.T) {
	e := setup(t)
	tests := []struct {
		name     string
		fields   map[string]any
		wantMCP  string
		explicit bool
	}{
		{"omitted lists take the root's defaults", map[string]any{"agent_root": "zimmer"}, "[playwright-custom]", false},
		{"an explicit empty list takes none and is recorded", map[string]any{"agent_root": "zimmer", "mcp_servers": []string{}}, "[]", true},
		{"an explicit list replaces the defaults", map[string]any{"agent_root": "zimmer", "mcp_servers": []string{"context7"}}, "[context7]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := e.create(t, tt.fields)
			if got := fmt.Sprint(s["mcp_servers"]); got != tt.wantMCP {
				t.Fatalf("mcp_servers %s, want %s", got, tt.wantMCP)
			}
			meta := s["metadata"].(map[string]any)
			if (meta["mcp_servers_explicitly_empty"] == true) != tt.explicit {
				t.Fatalf("mcp_servers_explicitly_empty %v, want %v", meta["mcp_servers_explicitly_empty"], tt.explicit)
			}
			if meta["agent_root_key"] != "zimmer" || s["git_root"] != "https://github.com/tadasant/zimmer.git" || s["branch"] != "main" {
				t.Fatalf("root not applied: %v %v %v", meta, s["git_root"], s["branch"])
			}
			if s["config"].(map[string]any)["model"] != "opus" || s["agent_runtime"] != "claude_code" {
				t.Fatalf("runtime/model defaults not applied: %v %v", s["agent_runtime"], s["config"])
			}
			if s["genesis"] != "api" || s["priority_class"] != "spot" || s["scheduling_class"] != nil {
				t.Fatalf("REST creates are api genesis, spot by derivation: %v %v %v", s["genesis"], s["priority_class"], s["scheduling_class"])
			}
		})
	}
}

func TestCreateSessionWithAParentInheritsGenesisAndPrecedence(t *testing.T) {
	e := setup(t)
	parent := e.create(t, map[string]any{"scheduling_class": "priority", "precedence": 10})
	child := e.create(t, map[string]any{"parent_session_id": parent["id"]})
	if child["parent_session_id"] != parent["id"] || child["precedence"] != float64(11) || child["scheduling_class"] != "priority" {
		t.Fatalf("child %v", child)
	}
}

func TestCreateWithAPromptQueuesTheFirstRun(t *testing.T) {
	e := setup(t)
	with := e.create(t, map[string]any{"prompt": "do the thing"})
	if with["job_id"] == nil {
		t.Fatal("a session created with a prompt records its job id")
	}
	queued, err := e.queue.TaskQueued(context.Background(), tasks.LaneAgents, with["job_id"].(string))
	if err != nil || !queued {
		t.Fatalf("the run must be visible in the agents lane: queued=%v err=%v", queued, err)
	}
	without := e.create(t, map[string]any{})
	if without["job_id"] != nil {
		t.Fatal("a session created without a prompt queues nothing")
	}
}

func TestFiftyConcurrentCreatesWithOneKeyMakeOneSession(t *testing.T) {
	e := setup(t)
	key := graphtest.Unique(t, "idem-http")
	const n = 50
	var wg sync.WaitGroup
	results := make([]response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.do(t, "POST", "/api/v1/sessions", map[string]any{
				"git_root": "file:///tmp/repo", "prompt": "once", "idempotency_key": key, "title": fmt.Sprint("attempt ", i)})
		}()
	}
	wg.Wait()
	created, ids := 0, map[any]bool{}
	for _, r := range results {
		switch r.status {
		case http.StatusCreated:
			created++
		case http.StatusOK:
			if r.body["idempotency_key_matched"] != true || r.body["message"] != "Existing session returned (idempotency_key matched)" {
				t.Fatalf("a replay must say so: %s", r.raw)
			}
		default:
			t.Fatalf("unexpected %d %s", r.status, r.raw)
		}
		ids[r.session(t)["id"]] = true
	}
	if created != 1 || len(ids) != 1 {
		t.Fatalf("want one create and one id, got %d creates, ids %v", created, ids)
	}
	// A replay racing the first create's enqueue may truthfully report no job yet; once the
	// first create has answered, a replay reports the queued run.
	again := e.do(t, "POST", "/api/v1/sessions", map[string]any{"git_root": "file:///tmp/repo", "idempotency_key": key})
	if again.status != http.StatusOK || again.body["agent_job_queued"] != true {
		t.Fatalf("a later replay reports the queued job: %s", again.raw)
	}
}

func TestShowFindsASessionByIDOrSlug(t *testing.T) {
	e := setup(t)
	slug := graphtest.Unique(t, "findme")
	s := e.create(t, map[string]any{"slug": slug, "title": "Find me"})
	for _, key := range []string{id(s), slug} {
		r := e.do(t, "GET", "/api/v1/sessions/"+key, nil)
		if r.status != 200 || r.session(t)["id"] != s["id"] {
			t.Fatalf("GET %s: %d %s", key, r.status, r.raw)
		}
		if _, ok := r.body["status_summary"]; !ok {
			t.Fatal("show carries status_summary beside session")
		}
	}
	if r := e.do(t, "GET", "/api/v1/sessions/999999999999", nil); r.status != 404 || r.body["error"] != "Not Found" {
		t.Fatalf("unknown id: %d %s", r.status, r.raw)
	}
}

func TestListSessionsPaginates(t *testing.T) {
	e := setup(t)
	e.create(t, map[string]any{})
	r := e.do(t, "GET", "/api/v1/sessions?per_page=1&page=1&status=waiting&agent_runtime=claude_code", nil)
	pag := r.body["pagination"].(map[string]any)
	if r.status != 200 || len(r.body["sessions"].([]any)) != 1 || pag["per_page"] != float64(1) || pag["total_count"].(float64) < 1 {
		t.Fatalf("got %d %s", r.status, truncate(r.raw))
	}
	r = e.do(t, "GET", "/api/v1/sessions?per_page=1000&status=bogus", nil)
	if r.body["pagination"].(map[string]any)["per_page"] != float64(25) {
		t.Fatalf("out-of-range per_page falls back to 25: %s", truncate(r.raw))
	}
}

func TestPatchSessionChangesOnlyTheEditableFields(t *testing.T) {
	e := setup(t)
	takenSlug := graphtest.Unique(t, "taken")
	e.create(t, map[string]any{"slug": takenSlug})
	s := e.create(t, map[string]any{"goal": "old goal", "scheduling_class": "priority", "custom_metadata": map[string]any{"a": 1}})
	path := "/api/v1/sessions/" + id(s)
	tests := []struct {
		name  string
		patch map[string]any
		check func(map[string]any) bool
	}{
		{"title", map[string]any{"title": "New title"}, func(u map[string]any) bool { return u["title"] == "New title" && u["slug"] != nil }},
		{"empty goal clears it", map[string]any{"goal": ""}, func(u map[string]any) bool { return u["goal"] == nil }},
		{"goal id resolves to its description", map[string]any{"goal": "codebase-question"}, func(u map[string]any) bool {
			return strings.HasPrefix(fmt.Sprint(u["goal"]), "Answer the question")
		}},
		{"null scheduling_class derives from genesis", map[string]any{"scheduling_class": nil}, func(u map[string]any) bool {
			return u["scheduling_class"] == nil && u["priority_class"] == "spot"
		}},
		{"custom_metadata is replaced", map[string]any{"custom_metadata": map[string]any{"b": 2}}, func(u map[string]any) bool {
			return fmt.Sprint(u["custom_metadata"]) == "map[b:2]"
		}},
		{"precedence and is_autonomous", map[string]any{"precedence": -4, "is_autonomous": "false"}, func(u map[string]any) bool {
			return u["precedence"] == float64(-4) && u["is_autonomous"] == false
		}},
		{"fields outside the list are ignored", map[string]any{"status": "running", "git_root": "elsewhere"}, func(u map[string]any) bool {
			return u["status"] == "waiting" && u["git_root"] == "file:///tmp/repo"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, "PATCH", path, tt.patch)
			if r.status != 200 || !tt.check(r.session(t)) {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
		})
	}
	bad := []struct {
		name   string
		patch  any
		status int
	}{
		{"title too long", map[string]any{"title": strings.Repeat("x", 101)}, 422},
		{"precedence of the wrong type", map[string]any{"precedence": "high"}, 422},
		{"bad scheduling class", map[string]any{"scheduling_class": "urgent"}, 422},
		{"malformed JSON", "{", 400},
		{"a slug another session has", map[string]any{"slug": takenSlug}, 422},
	}
	for _, tt := range bad {
		t.Run("refuses "+tt.name, func(t *testing.T) {
			if r := e.do(t, "PATCH", path, tt.patch); r.status != tt.status {
				t.Fatalf("got %d %s", r.status, r.raw)
			}
		})
	}
	if r := e.do(t, "PATCH", "/api/v1/sessions/999999999999", map[string]any{"title": "x"}); r.status != 404 {
		t.Fatalf("unknown session: %d", r.status)
	}
}

func TestArchiveAndUnarchive(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(s)
	r := e.do(t, "POST", path+"/archive", nil)
	if r.status != 200 || r.body["message"] != "Session moved to trash" || r.body["trash_after"] == nil || r.session(t)["status"] != "archived" {
		t.Fatalf("archive: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", path+"/archive", nil); r.status != 422 || r.body["error"] != "Cannot trash" {
		t.Fatalf("archive twice: %d %s", r.status, r.raw)
	}
	r = e.do(t, "POST", path+"/unarchive", nil)
	if r.status != 200 || r.session(t)["status"] != "needs_input" || r.session(t)["trash_after"] != nil {
		t.Fatalf("unarchive: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "POST", path+"/unarchive", nil); r.status != 422 || r.body["error"] != "Cannot restore" {
		t.Fatalf("unarchive a live session: %d %s", r.status, r.raw)
	}
}

func TestNotes(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(s) + "/notes"
	r := e.do(t, "PATCH", path, map[string]any{"session_notes": "remember this"})
	if r.status != 200 || r.session(t)["session_notes"] != "remember this" || r.body["session_notes_updated_at"] == nil {
		t.Fatalf("set: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "PATCH", path, map[string]any{"session_notes": ""}); r.session(t)["session_notes"] != nil {
		t.Fatalf("empty clears: %s", r.raw)
	}
	if r := e.do(t, "PATCH", path, map[string]any{"session_notes": strings.Repeat("n", 50_001)}); r.status != 422 || r.body["error"] != "Too long" {
		t.Fatalf("too long: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "PATCH", path, map[string]any{}); r.status != 422 {
		t.Fatalf("missing: %d %s", r.status, r.raw)
	}
}

func TestDeleteSession(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(s)
	if r := e.do(t, "DELETE", path, nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", path, nil); r.status != 404 {
		t.Fatalf("deleted session still readable: %d", r.status)
	}
	if r := e.do(t, "DELETE", path, nil); r.status != 404 {
		t.Fatalf("delete twice: %d", r.status)
	}
}
