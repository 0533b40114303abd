package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

const otherKey = "another-key-0123456789"

// healthSetup is the server on a Redis of the test's own, so its lanes, halts and cooldowns are
// the test's alone, and that it can stop.
func healthSetup(t *testing.T) (*env, *graphtest.Redis, *asynq.Client) {
	t.Helper()
	r := graphtest.StartRedis(t, graphtest.Unique(t, "pw"))
	conn, _ := asynq.ParseRedisURI(r.URL)
	c := asynq.NewClient(conn)
	t.Cleanup(func() { c.Close() })
	return setupWithRedis(t, r.URL), r, c
}

// tool calls an MCP tool with key and returns its text and whether it is an isError result.
func (e *env) tool(t *testing.T, key, name string, args map[string]any) (string, bool) {
	t.Helper()
	r := e.do(t, http.MethodPost, "/mcp?tool_groups=health", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}}, "X-API-Key", key, "Accept", "application/json")
	result, _ := r.body["result"].(map[string]any)
	if r.status != http.StatusOK || result == nil {
		t.Fatalf("tools/call %s: %d %s", name, r.status, r.raw)
	}
	var text strings.Builder
	for _, c := range result["content"].([]any) {
		text.WriteString(fmt.Sprint(c.(map[string]any)["text"]))
	}
	return text.String(), result["isError"] == true
}

func TestTheHealthCooldownIsSharedBetweenRESTAndMCPForOneKey(t *testing.T) {
	e, redis, _ := healthSetup(t)
	s := e.create(t, map[string]any{})
	body := map[string]any{"session_ids": []any{s["id"]}}

	if r := e.do(t, http.MethodPost, "/api/v1/health/retry_sessions", body); r.status != http.StatusOK {
		t.Fatalf("first retry over REST: %d %s", r.status, r.raw)
	}
	text, refused := e.tool(t, apiKey, "action_health", map[string]any{"action": "retry_sessions", "session_ids": []any{s["id"]}})
	if !refused || text != "Rate limited: please wait 30 seconds between health actions." {
		t.Errorf("the same key over MCP within 30s: %v %q; want the rate-limit refusal", refused, text)
	}
	if text, refused := e.tool(t, otherKey, "action_health", map[string]any{"action": "retry_sessions", "session_ids": []any{s["id"]}}); refused {
		t.Errorf("another key was throttled by the first: %q", text)
	}
	r := e.do(t, http.MethodPost, "/api/v1/health/retry_sessions", body, "X-API-Key", otherKey)
	if after, _ := r.body["retry_after"].(float64); r.status != http.StatusTooManyRequests || r.body["error"] != "Rate limited" || after < 1 || after > 30 {
		t.Errorf("the second key over REST after its MCP run: %d %s; want 429 with retry_after in 1..30", r.status, r.raw)
	}
	if text, refused := e.tool(t, apiKey, "action_health", map[string]any{"action": "enter_queue_recovery_mode"}); refused {
		t.Errorf("queue recovery mode is never throttled: %q", text)
	}

	redis.Stop()
	r = e.do(t, http.MethodPost, "/api/v1/health/archive_old", map[string]any{"days": 30})
	if r.status != http.StatusServiceUnavailable || r.body["error"] != "Rate limiting unavailable" {
		t.Errorf("REST with Redis stopped: %d %s; want 503 Rate limiting unavailable", r.status, r.raw)
	}
	text, refused = e.tool(t, otherKey, "action_health", map[string]any{"action": "cleanup_processes"})
	if !refused || !strings.HasPrefix(text, "Rate limiting unavailable: the cache is unavailable, so the 30-second cooldown cannot be enforced.") {
		t.Errorf("MCP with Redis stopped: %v %q; want the fail-closed refusal", refused, text)
	}
}

func TestTheHealthReportOnRESTAndMCPStatesRecoveryModeFirst(t *testing.T) {
	e, _, client := healthSetup(t)
	if _, err := client.Enqueue(asynq.NewTask("demo:backlog", nil, asynq.Queue(tasks.LanePollers))); err != nil {
		t.Fatal(err)
	}
	r := e.do(t, http.MethodGet, "/api/v1/health", nil)
	report, _ := r.body["health_report"].(map[string]any)
	if r.status != http.StatusOK || report == nil {
		t.Fatalf("GET /health: %d %s", r.status, r.raw)
	}
	if queues, _ := report["queues"].([]any); len(queues) != len(tasks.Lanes()) {
		t.Errorf("queues = %v; want every lane", report["queues"])
	}
	if w, _ := report["longest_waiting"].(map[string]any); w["queue"] != tasks.LanePollers || w["job_class"] != "demo:backlog" {
		t.Errorf("longest waiting = %v; want demo:backlog on pollers", report["longest_waiting"])
	}
	if byStatus, _ := report["sessions_by_status"].(map[string]any); len(byStatus) != len(session.Statuses) {
		t.Errorf("sessions by status = %v; want every status", report["sessions_by_status"])
	}
	deps, _ := report["dependencies"].(map[string]any)
	for _, name := range []string{"neo4j", "redis"} {
		if d, _ := deps[name].(map[string]any); d["state"] != "up" {
			t.Errorf("%s = %v; want up", name, d)
		}
	}
	if mode, _ := r.body["queue_recovery_mode"].(map[string]any); mode["active"] != false {
		t.Errorf("queue_recovery_mode = %v; want off", mode)
	}
	text, refused := e.tool(t, apiKey, "get_system_health", map[string]any{})
	for _, want := range []string{"## System Health Report", "- **Queue recovery mode:** Off (background jobs processing normally)",
		"- **Ready backlog by queue:** pollers=1", "- **Ready backlog by job class:** demo:backlog=1", "### Secret Store", "### Health Details"} {
		if refused || !strings.Contains(text, want) {
			t.Errorf("get_system_health lacks %q:\n%s", want, text)
		}
	}

	on := e.do(t, http.MethodPost, "/api/v1/health/enter_queue_recovery_mode", map[string]any{"reason": "runaway pollers", "ttl_minutes": 1})
	if on.status != http.StatusOK || on.body["active"] != true || on.body["reason"] != "runaway pollers" || on.body["expires_in_seconds"].(float64) < 290 {
		t.Fatalf("enter over REST: %d %s; want on for the 5-minute floor", on.status, on.raw)
	}
	text, _ = e.tool(t, apiKey, "get_system_health", map[string]any{})
	banner, backlog := strings.Index(text, "QUEUE RECOVERY MODE IS ON"), strings.Index(text, "Ready backlog by queue")
	if banner < 0 || backlog < 0 || banner > backlog || !strings.Contains(text, "live: agents") {
		t.Errorf("the recovery banner must come before the backlog and name the live lane:\n%s", text)
	}
	text, refused = e.tool(t, apiKey, "action_health", map[string]any{"action": "exit_queue_recovery_mode"})
	if refused || !strings.HasPrefix(text, "## Queue Recovery Mode OFF\n\nThe halted queues are running again") {
		t.Errorf("exit over MCP: %q", text)
	}
	if st := e.do(t, http.MethodGet, "/api/v1/health/queue_recovery_mode", nil); st.body["active"] != false || len(st.body["paused_queues"].([]any)) != 0 {
		t.Errorf("after exit: %s", st.raw)
	}
}

func TestDiscardWithAWrongExpectedCountIsRefusedAndDiscardsNothing(t *testing.T) {
	e, _, client := healthSetup(t)
	for range 3 {
		if _, err := client.Enqueue(asynq.NewTask("demo:flood", nil, asynq.Queue(tasks.LaneDefault))); err != nil {
			t.Fatal(err)
		}
	}
	preview := func() float64 {
		t.Helper()
		r := e.do(t, http.MethodGet, "/api/v1/health/queued_jobs?job_class=demo:flood", nil)
		if r.status != http.StatusOK {
			t.Fatalf("preview: %d %s", r.status, r.raw)
		}
		return r.body["matched"].(float64)
	}
	if n := preview(); n != 3 {
		t.Fatalf("preview matched %v; want 3", n)
	}
	r := e.do(t, http.MethodPost, "/api/v1/health/discard_queued_jobs", map[string]any{"job_class": "demo:flood", "expected_count": 2})
	if r.status != http.StatusUnprocessableEntity || r.body["error"] != "Refused" || !strings.Contains(r.raw, "but 3 job(s) match now (demo:flood=3)") {
		t.Errorf("discard expecting 2 over REST: %d %s; want 422 Refused with the real count and breakdown", r.status, r.raw)
	}
	text, refused := e.tool(t, apiKey, "action_health", map[string]any{"action": "discard_queued_jobs", "job_class": "demo:flood", "expected_count": 4})
	if !refused || !strings.Contains(text, "expected_count is 4 but 3 job(s) match now (demo:flood=3); nothing was changed") {
		t.Errorf("discard expecting 4 over MCP: %v %q", refused, text)
	}
	if n := preview(); n != 3 {
		t.Fatalf("after two refused discards %v match; want all 3 still queued", n)
	}
	text, refused = e.tool(t, apiKey, "action_health", map[string]any{"action": "discard_queued_jobs", "queue_name": "agents", "expected_count": 0})
	if !refused || !strings.Contains(text, "the agents queue is refused") {
		t.Errorf("discard on the agents queue: %v %q; want refused by name", refused, text)
	}
	if r := e.do(t, http.MethodPost, "/api/v1/health/discard_queued_jobs", map[string]any{"job_class": "demo:flood"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("discard without expected_count: %d %s; want 422", r.status, r.raw)
	}
	r = e.do(t, http.MethodPost, "/api/v1/health/discard_queued_jobs", map[string]any{"job_class": "demo:flood", "expected_count": 3})
	if r.status != http.StatusOK || r.body["affected"] != 3.0 || r.body["recoverable"] != false {
		t.Fatalf("discard with the previewed count: %d %s", r.status, r.raw)
	}
	if n := preview(); n != 0 {
		t.Errorf("after the discard %v match; want 0", n)
	}
}
