package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/roster"
)

func (e *env) say(t *testing.T, s map[string]any, content string, at time.Time) {
	t.Helper()
	_, err := e.store.RecordHumanMessage(context.Background(), roster.Message{SessionID: int64(s["id"].(float64)),
		Author: "tadasant", Channel: roster.ChannelWebUI, Content: content, EntryPoint: "web_ui.follow_up", OccurredAt: at})
	if err != nil {
		t.Fatal(err)
	}
}

func TestShowCarriesHumanMessagesBesideTheSession(t *testing.T) {
	e := setup(t)
	router := e.create(t, map[string]any{"agent_root": "zimmer-router", "title": "Route it"})
	worker := e.create(t, map[string]any{"agent_root": "zimmer", "title": "Do it", "parent_session_id": router["id"]})
	at := time.Date(2026, 8, 2, 4, 5, 6, 0, time.UTC)
	e.say(t, worker, "Go ahead.", at.Add(time.Minute))
	e.say(t, router, "Add spot vs priority", at)

	r := e.do(t, "GET", "/api/v1/sessions/"+id(worker), nil)
	msgs, ok := r.body["human_messages"].([]any)
	if !ok || len(msgs) != 2 {
		t.Fatalf("human_messages: %s", r.raw)
	}
	if _, inside := r.session(t)["human_messages"]; inside {
		t.Fatal("human_messages must sit beside session, never inside it")
	}
	want := []map[string]any{
		{"origin": "elsewhere", "author": "tadasant", "author_display_name": "Tadas", "channel": "web_ui",
			"channel_label": "Zimmer web UI", "authored_in_session_id": router["id"],
			"authored_in": fmt.Sprintf("session #%s — zimmer-router · Route it", id(router)), "entry_point": "web_ui.follow_up",
			"content": "Add spot vs priority", "occurred_at": "2026-08-02T04:05:06Z"},
		{"origin": "here", "author": "tadasant", "author_display_name": "Tadas", "channel": "web_ui",
			"channel_label": "Zimmer web UI", "authored_in_session_id": worker["id"],
			"authored_in": fmt.Sprintf("this session (#%s)", id(worker)), "entry_point": "web_ui.follow_up",
			"content": "Go ahead.", "occurred_at": "2026-08-02T04:06:06Z"},
	}
	for i, w := range want {
		got := msgs[i].(map[string]any)
		if len(got) != len(w) {
			t.Errorf("entry %d has keys %v", i, got)
		}
		for k, v := range w {
			if got[k] != v {
				t.Errorf("entry %d %s = %v, want %v", i, k, got[k], v)
			}
		}
	}
	t.Run("an empty record is an empty array, not null", func(t *testing.T) {
		alone := e.create(t, map[string]any{})
		r := e.do(t, "GET", "/api/v1/sessions/"+id(alone), nil)
		if !strings.Contains(r.raw, `"human_messages":[]`) {
			t.Fatalf("got %s", r.raw)
		}
	})
}

// TestAppSettingsRoundTripAndPromptMode flips the one global setting, so it restores the
// default and no other test reads it.
func TestAppSettingsRoundTripAndPromptMode(t *testing.T) {
	e := setup(t)
	t.Cleanup(func() { e.do(t, "PATCH", "/api/v1/app_settings", map[string]any{"provenance_via_mcp_enabled": true}) })
	ops := orchestrator.New(orchestrator.Deps{Store: e.store, Log: graphtest.Logger()})
	router := e.create(t, map[string]any{"title": "Route it"})
	worker := e.create(t, map[string]any{"title": "Do it", "parent_session_id": router["id"]})
	e.say(t, router, "the human's own words", time.Now())
	workerID := int64(worker["id"].(float64))

	tests := []struct {
		name   string
		body   any
		status int
		value  any  // provenance_via_mcp_enabled after the call
		full   bool // whether the prompt carries the record itself
	}{
		{"turning the experiment off injects the full record", map[string]any{"provenance_via_mcp_enabled": false}, http.StatusOK, false, true},
		{"a wrong type is 422 and changes nothing", map[string]any{"provenance_via_mcp_enabled": "sometimes"}, http.StatusUnprocessableEntity, false, true},
		{"null is 422 too", `{"provenance_via_mcp_enabled": null}`, http.StatusUnprocessableEntity, false, true},
		{"an empty patch changes nothing", map[string]any{}, http.StatusOK, false, true},
		{"turning it back on injects only the pointer", map[string]any{"provenance_via_mcp_enabled": true}, http.StatusOK, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, "PATCH", "/api/v1/app_settings", tt.body)
			if r.status != tt.status {
				t.Fatalf("PATCH: %d %s", r.status, r.raw)
			}
			if tt.status == http.StatusUnprocessableEntity && r.body["message"] != "provenance_via_mcp_enabled must be true or false" {
				t.Fatalf("message %v", r.body["message"])
			}
			got := e.do(t, "GET", "/api/v1/app_settings", nil)
			s, _ := got.body["app_settings"].(map[string]any)
			if got.status != http.StatusOK || s["provenance_via_mcp_enabled"] != tt.value || s["updated_at"] == nil {
				t.Fatalf("GET: %d %s", got.status, got.raw)
			}
			blocks, err := ops.PromptBlocks(context.Background(), workerID)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(blocks, "the human's own words") != tt.full || !strings.Contains(blocks, "<human-messages>") {
				t.Fatalf("prompt blocks:\n%s", blocks)
			}
		})
	}
}
