package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

func init() {
	sweepFixtures["REST POST /sessions/:id/subagent_transcripts"] = func(t *testing.T, s *sweep) (string, map[string]any) {
		return fmt.Sprint(s.target.ID), map[string]any{"agent_id": graphtest.Unique(t, "sweep-agent")}
	}
}

func TestASessionsSubagentTranscriptsCanBeRecordedReadFilteredEditedAndRemoved(t *testing.T) {
	e := setup(t)
	owner := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(owner) + "/subagent_transcripts"
	key := "sk-ant-api03-" + strings.Repeat("Q7", 20)
	made := map[string]string{}
	for _, a := range []struct{ agent, kind, status string }{
		{"a1", "Explore", "completed"}, {"a2", "Explore", "running"}, {"a3", "Plan", "failed"},
	} {
		r := e.do(t, "POST", path, map[string]any{"agent_id": a.agent, "subagent_type": a.kind, "status": a.status,
			"tool_use_id": "toolu_" + a.agent, "message_count": 4, "duration_ms": "1500", "total_tokens": 2000, "tool_use_count": 2,
			"description": "look around", "filename": "agent-" + a.agent + ".jsonl",
			"transcript": `{"type":"user","message":{"content":"export ANTHROPIC_API_KEY=` + key + `"}}` + "\n"})
		rec, _ := r.body["subagent_transcript"].(map[string]any)
		if r.status != http.StatusCreated || rec["agent_id"] != a.agent || rec["duration_ms"] != 1500.0 || rec["status"] != a.status {
			t.Fatalf("create %s: %d %s", a.agent, r.status, r.raw)
		}
		if _, ok := rec["transcript"]; ok || strings.Contains(r.raw, key) {
			t.Fatalf("a create answers without the transcript: %s", r.raw)
		}
		made[a.agent] = fmt.Sprint(rec["id"])
	}

	for query, want := range map[string][]string{
		"":                                   {"a3", "a2", "a1"},
		"?subagent_type=Explore":             {"a2", "a1"},
		"?status=failed":                     {"a3"},
		"?status=running&subagent_type=Plan": {},
		"?per_page=1&page=2":                 {"a2"},
	} {
		r := e.do(t, "GET", path+query, nil)
		list, _ := r.body["subagent_transcripts"].([]any)
		var got []string
		for _, x := range list {
			got = append(got, x.(map[string]any)["agent_id"].(string))
		}
		total := r.body["pagination"].(map[string]any)["total_count"]
		if r.status != http.StatusOK || fmt.Sprint(got) != fmt.Sprint(want) || strings.Contains(r.raw, `"transcript"`) ||
			(query != "?per_page=1&page=2" && total != float64(len(want))) {
			t.Errorf("list %q: got %v (total %v), want %v: %d %s", query, got, total, want, r.status, r.raw)
		}
	}

	one := path + "/" + made["a1"]
	if r := e.do(t, "GET", one, nil); r.status != http.StatusOK || strings.Contains(r.raw, `"transcript"`) {
		t.Fatalf("show without the transcript: %d %s", r.status, r.raw)
	}
	r := e.do(t, "GET", one+"?include_transcript=true", nil)
	text, _ := r.body["subagent_transcript"].(map[string]any)["transcript"].(string)
	if r.status != http.StatusOK || strings.Contains(text, key) || !strings.Contains(text, "ANTHROPIC_API_KEY=[REDACTED:ANTHROPIC_API_KEY]") {
		t.Fatalf("the stored transcript is the masked one: %d %s", r.status, r.raw)
	}

	r = e.do(t, "PATCH", one, map[string]any{"status": "failed", "description": nil, "transcript": "token ghp_" + strings.Repeat("x1", 20)})
	rec := r.body["subagent_transcript"].(map[string]any)
	if r.status != http.StatusOK || rec["status"] != "failed" || rec["description"] != nil || rec["agent_id"] != "a1" || rec["message_count"] != 4.0 {
		t.Fatalf("an edit changes what it sends and nothing else: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", one+"?include_transcript=true", nil); !strings.Contains(r.raw, "[REDACTED:GITHUB_TOKEN]") {
		t.Fatalf("an edited transcript is masked too: %s", r.raw)
	}
	if r := e.do(t, "DELETE", one, nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	for _, method := range []string{"GET", "PATCH", "DELETE"} {
		if r := e.do(t, method, one, map[string]any{"status": "running"}); r.status != http.StatusNotFound || r.body["message"] != "Subagent transcript not found" {
			t.Errorf("%s a removed record: %d %s", method, r.status, r.raw)
		}
	}
	if r := e.do(t, "POST", path, map[string]any{"agent_id": "a1"}); r.status != http.StatusCreated {
		t.Fatalf("a removed record's agent_id is free again: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "DELETE", "/api/v1/sessions/"+id(owner), nil); r.status != http.StatusNoContent {
		t.Fatalf("delete the session: %d %s", r.status, r.raw)
	}
	// The records go with their session: the division fails if one is left.
	graphtest.Cypher(t, "MATCH (t:SubagentTranscript {session_id: $id}) RETURN 1 / 0", map[string]any{"id": int64(owner["id"].(float64))})
}

func TestASubagentTranscriptNeedsAnAgentIDUniqueInItsSessionAndValidFields(t *testing.T) {
	e := setup(t)
	s := e.create(t, map[string]any{})
	path := "/api/v1/sessions/" + id(s) + "/subagent_transcripts"
	first := e.do(t, "POST", path, map[string]any{"agent_id": "taken"})
	if first.status != http.StatusCreated {
		t.Fatalf("create: %d %s", first.status, first.raw)
	}
	tests := []struct {
		name string
		body map[string]any
		want string
	}{
		{"no agent_id", map[string]any{"status": "running"}, "Agent can't be blank"},
		{"a blank agent_id", map[string]any{"agent_id": "  "}, "Agent can't be blank"},
		{"a taken agent_id", map[string]any{"agent_id": "taken"}, "Agent has already been taken"},
		{"an unknown status", map[string]any{"agent_id": "b", "status": "done"}, "Status must be one of running, completed, failed"},
		{"a negative count", map[string]any{"agent_id": "b", "message_count": -1}, "Message count must be greater than or equal to 0"},
		{"a count that is not a number", map[string]any{"agent_id": "b", "total_tokens": "many"}, "total_tokens must be an integer"},
		{"an agent_id that is not a string", map[string]any{"agent_id": 7}, "agent_id must be a string"},
		{"a long agent_id", map[string]any{"agent_id": strings.Repeat("a", 256)}, "Agent is too long (maximum is 255 characters)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, "POST", path, tt.body)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, tt.want) {
				t.Fatalf("%d %s; want 422 %q", r.status, r.raw, tt.want)
			}
		})
	}
	second := e.do(t, "POST", path, map[string]any{"agent_id": "second"})
	one := path + "/" + fmt.Sprint(second.body["subagent_transcript"].(map[string]any)["id"])
	for body, want := range map[string]map[string]any{
		"Agent has already been taken": {"agent_id": "taken"},
		"Agent can't be blank":         {"agent_id": nil},
	} {
		if r := e.do(t, "PATCH", one, want); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, body) {
			t.Errorf("edit to %v: %d %s", want, r.status, r.raw)
		}
	}
	if r := e.do(t, "GET", path, nil); r.body["pagination"].(map[string]any)["total_count"] != 2.0 {
		t.Fatalf("a refused record was written: %s", r.raw)
	}
	// Another session may use the same agent_id.
	other := "/api/v1/sessions/" + id(e.create(t, map[string]any{})) + "/subagent_transcripts"
	if r := e.do(t, "POST", other, map[string]any{"agent_id": "taken"}); r.status != http.StatusCreated {
		t.Fatalf("agent_id is unique per session only: %d %s", r.status, r.raw)
	}
	if r := e.do(t, "GET", other+"/"+fmt.Sprint(first.body["subagent_transcript"].(map[string]any)["id"]), nil); r.status != http.StatusNotFound {
		t.Fatalf("a record is read through its own session only: %d %s", r.status, r.raw)
	}
	for _, p := range []string{"/api/v1/sessions/999999999/subagent_transcripts", path + "/not-a-number"} {
		if r := e.do(t, "GET", p, nil); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d %s", p, r.status, r.raw)
		}
	}
}
