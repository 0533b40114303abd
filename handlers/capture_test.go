package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// One test per row of seed 001's capture table: what is recorded, and what is not.

func TestWebUIBoundariesRecordTheAdminsWords(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	running := func(d *session.Session) { d.Status = session.StatusRunning }
	tests := []struct {
		name string
		act  func(t *testing.T) int64 // the input; returns the session the words were said to
		want []string
	}{
		{"new session", func(t *testing.T) int64 {
			id := redirected(t, h.post(t, "/sessions", url.Values{"agent_root": {"general-agent"}, "title": {"Web"}, "prompt": {"  Build the thing  "}}))
			if s := h.get(t, id); s.Genesis != session.GenesisWebUI || s.JobID == nil {
				t.Errorf("a web create is genesis web_ui and queues its run: %+v", s)
			}
			return id
		}, []string{"tadasant web_ui web_ui.new_session «Build the thing»"}},
		{"new session without a prompt records nothing", func(t *testing.T) int64 {
			return redirected(t, h.post(t, "/sessions", url.Values{"agent_root": {"general-agent"}, "prompt": {"  \n "}}))
		}, nil},
		{"quick prompt starts a router", func(t *testing.T) int64 {
			id := redirected(t, h.post(t, "/quick_prompt", url.Values{"prompt": {"Route this please"}}))
			if s := h.get(t, id); s.Metadata[session.MetaAgentRoot] != "zimmer-router" || s.Genesis != session.GenesisWebUI {
				t.Errorf("quick prompt must start a web_ui zimmer-router session: %+v", s)
			}
			return id
		}, []string{"tadasant web_ui web_ui.quick_prompt «Route this please»"}},
		{"follow-up to a waiting session", func(t *testing.T) int64 {
			s := h.session(t, nil)
			redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/follow_up", s.ID), url.Values{"prompt": {"Also do Y"}}))
			if got := h.get(t, s.ID); got.Status != session.StatusRunning || got.Prompt == nil || *got.Prompt != "Also do Y" {
				t.Errorf("the follow-up must be delivered: %+v", got)
			}
			return s.ID
		}, []string{"tadasant web_ui web_ui.follow_up «Also do Y»"}},
		{"follow-up to a running session is queued", func(t *testing.T) int64 {
			s := h.session(t, running)
			p := h.post(t, fmt.Sprintf("/sessions/%d/follow_up", s.ID), url.Values{"prompt": {"When you are done, Z"}})
			if !strings.HasSuffix(p.location, "notice=queued") {
				t.Errorf("want the queued notice, got %q", p.location)
			}
			return s.ID
		}, []string{"tadasant web_ui web_ui.follow_up_queued «When you are done, Z»"}},
		{"enqueued message", func(t *testing.T) int64 {
			s := h.session(t, running)
			redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/enqueued_messages", s.ID), url.Values{"content": {"Queue this"}}))
			return s.ID
		}, []string{"tadasant web_ui web_ui.enqueued_message «Queue this»"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now().Add(-time.Second)
			id := tt.act(t)
			msgs := h.messages(t, id)
			if got := describe(msgs); !slices.Equal(got, tt.want) {
				t.Fatalf("record of #%d:\n got %q\nwant %q", id, got, tt.want)
			}
			for _, m := range msgs {
				if m.OccurredAt.Before(start) || m.OccurredAt.After(time.Now().Add(time.Second)) {
					t.Errorf("occurred_at %v is not the time it was typed", m.OccurredAt)
				}
			}
		})
	}
	if p := h.request(t, http.MethodGet, "/metrics", nil); !strings.Contains(p.body, `zimmer_human_messages_total{channel="web_ui"} 5`) {
		t.Errorf("want 5 web_ui messages counted in /metrics")
	}
}

func TestMachinePathsRecordNothing(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	tests := []struct {
		name string
		act  func(t *testing.T) []int64 // the sessions whose record must stay empty
	}{
		{"REST follow_up, even with an acting session", func(t *testing.T) []int64 {
			actor, target := h.session(t, nil), h.session(t, nil)
			h.mustREST(t, http.MethodPost, fmt.Sprintf("/api/v1/sessions/%d/follow_up", target.ID),
				map[string]any{"prompt": "I am tadasant, do it", "acting_session_id": strconv.FormatInt(actor.ID, 10)})
			return []int64{actor.ID, target.ID}
		}},
		{"REST force_immediate follow_up", func(t *testing.T) []int64 {
			target := h.session(t, nil)
			h.mustREST(t, http.MethodPost, fmt.Sprintf("/api/v1/sessions/%d/follow_up", target.ID),
				map[string]any{"prompt": "now", "force_immediate": true})
			return []int64{target.ID}
		}},
		{"REST enqueue", func(t *testing.T) []int64 {
			target := h.session(t, nil)
			h.mustREST(t, http.MethodPost, fmt.Sprintf("/api/v1/sessions/%d/enqueued_messages", target.ID), map[string]any{"content": "later"})
			return []int64{target.ID}
		}},
		{"router-written spawn prompt via REST create", func(t *testing.T) []int64 {
			router := h.session(t, func(d *session.Session) { d.Genesis = session.GenesisWebUI })
			_, body := h.mustREST(t, http.MethodPost, "/api/v1/sessions", map[string]any{"agent_root": "general-agent",
				"prompt": "Tadas asked for X: build X", "parent_session_id": router.ID})
			child := int64(body["session"].(map[string]any)["id"].(float64))
			return []int64{router.ID, child}
		}},
		{"REST create with a prompt", func(t *testing.T) []int64 {
			_, body := h.mustREST(t, http.MethodPost, "/api/v1/sessions", map[string]any{"agent_root": "zimmer-router", "prompt": "route"})
			return []int64{int64(body["session"].(map[string]any)["id"].(float64))}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := tt.act(t)
			if msgs := h.messages(t, ids...); len(msgs) != 0 {
				t.Fatalf("a machine path recorded %q", describe(msgs))
			}
		})
	}
}

func (h *humans) mustREST(t *testing.T, method, path string, body any) (int, map[string]any) {
	t.Helper()
	status, out := h.postJSON(t, method, path, body)
	if status >= 300 {
		t.Fatalf("%s %s: %d %v", method, path, status, out)
	}
	return status, out
}

func TestAForgedActingSessionIDInAWebFormRecordsNoUncleEdge(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	actor, target := h.session(t, nil), h.session(t, func(d *session.Session) { d.Status = session.StatusRunning })
	forged := strconv.FormatInt(actor.ID, 10)
	for _, path := range []string{"/sessions/%d/follow_up", "/sessions/%d/enqueued_messages"} {
		redirected(t, h.post(t, fmt.Sprintf(path, target.ID), url.Values{"prompt": {"typed"}, "content": {"typed"}, "acting_session_id": {forged}}))
	}
	hier, err := h.store.Hierarchy(context.Background(), target.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range hier.Nodes {
		if len(n.UncleIDs) > 0 {
			t.Fatalf("a human is never an uncle, but #%d has uncles %v", n.ID, n.UncleIDs)
		}
	}
	if len(hier.Nodes) != 1 {
		t.Fatalf("the forged actor joined the hierarchy: %+v", hier.Nodes)
	}
	if got := describe(h.messages(t, target.ID)); len(got) != 2 || !strings.Contains(got[0], "tadasant") {
		t.Fatalf("the words are still the admin's: %q", got)
	}
}

func TestAnAdminKeyNamingNobodyDeliversButRecordsNothing(t *testing.T) {
	h := setupHumans(t, humansOpts{admin: "nobody-by-that-key"})
	created := redirected(t, h.post(t, "/sessions", url.Values{"agent_root": {"general-agent"}, "prompt": {"Build it"}}))
	if s := h.get(t, created); s.JobID == nil {
		t.Error("the session must still be created and its run queued")
	}
	idle := h.session(t, nil)
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/follow_up", idle.ID), url.Values{"prompt": {"go on"}}))
	if s := h.get(t, idle.ID); s.Status != session.StatusRunning {
		t.Errorf("the follow-up must still be delivered: status %s", s.Status)
	}
	quick := redirected(t, h.post(t, "/quick_prompt", url.Values{"prompt": {"route it"}}))
	if msgs := h.messages(t, created, idle.ID, quick); len(msgs) != 0 {
		t.Fatalf("with no admin row nothing may be attributed, got %q", describe(msgs))
	}
	if p := h.request(t, http.MethodGet, fmt.Sprintf("/sessions/%d", created), nil); !strings.Contains(p.body, "Capture is not configured for the Zimmer web UI") {
		t.Error("the session page must say the empty record is a capture gap, not silence")
	}
}

func TestRefusedWebInputRecordsNothing(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	archived := h.session(t, func(d *session.Session) { d.Status = session.StatusArchived })
	idle := h.session(t, nil)
	tests := []struct {
		name, path string
		form       url.Values
		status     int
		session    int64
	}{
		{"blank follow-up", fmt.Sprintf("/sessions/%d/follow_up", idle.ID), url.Values{"prompt": {"  "}}, http.StatusUnprocessableEntity, idle.ID},
		{"follow-up to an archived session", fmt.Sprintf("/sessions/%d/follow_up", archived.ID), url.Values{"prompt": {"hello"}}, http.StatusUnprocessableEntity, archived.ID},
		{"blank enqueue", fmt.Sprintf("/sessions/%d/enqueued_messages", idle.ID), url.Values{"content": {""}}, http.StatusUnprocessableEntity, idle.ID},
		{"blank quick prompt", "/quick_prompt", url.Values{"prompt": {" "}}, http.StatusUnprocessableEntity, 0},
		{"unknown agent root", "/sessions", url.Values{"agent_root": {"nope"}, "prompt": {"hi"}}, http.StatusUnprocessableEntity, 0},
		{"unknown session", "/sessions/999999999/follow_up", url.Values{"prompt": {"hi"}}, http.StatusNotFound, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := h.post(t, tt.path, tt.form)
			if p.status != tt.status {
				t.Fatalf("want %d, got %d %s", tt.status, p.status, p.body)
			}
			if tt.session != 0 {
				if msgs := h.messages(t, tt.session); len(msgs) != 0 {
					t.Fatalf("a refused input was recorded: %q", describe(msgs))
				}
			}
		})
	}
}

func TestAFollowUpAtTheLengthLimitIsRecordedWhole(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, nil)
	long := strings.Repeat("é", session.MaxPrompt)
	redirected(t, h.post(t, fmt.Sprintf("/sessions/%d/follow_up", s.ID), url.Values{"prompt": {long}}))
	msgs := h.messages(t, s.ID)
	if len(msgs) != 1 || msgs[0].Content != long {
		t.Fatalf("want the whole %d-character prompt recorded", session.MaxPrompt)
	}
}
