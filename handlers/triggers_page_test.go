package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

var triggerIDLine = regexp.MustCompile(`- \*\*Trigger ID:\*\* (\d+)`)

// The /triggers page lists a session's pending wake and is where a human cancels it — the
// takeover a follow-up is not; a trigger that is no wake is toggled there, never "cancelled".
func TestTheTriggersPageListsTogglesAndCancelsAWake(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	s := h.session(t, func(d *session.Session) { d.Status = session.StatusNeedsInput })
	text, refused := h.tool(t, "wake_me_up_later", map[string]any{"session_id": s.ID, "wake_at": "2031-01-02T03:04:05", "prompt": "check CI"})
	if refused {
		t.Fatal(text)
	}
	wakeID := triggerIDLine.FindStringSubmatch(text)[1]
	status, out := h.mustREST(t, http.MethodPost, "/api/v1/triggers", map[string]any{"name": "Weekly digest", "agent_root_name": "general-agent",
		"prompt_template": "digest", "trigger_conditions_attributes": []any{map[string]any{"condition_type": "schedule",
			"configuration": map[string]any{"unit": "weeks", "day_of_week": "monday", "time": "09:00"}}}})
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, out)
	}
	digestID := fmt.Sprint(int64(out["trigger"].(map[string]any)["id"].(float64)))

	p := h.request(t, http.MethodGet, "/triggers", nil)
	for _, want := range []string{fmt.Sprintf("Wake session #%d at 2031-01-02T03:04:05", s.ID), "Cancel wake #" + wakeID,
		"Weekly digest", "every 1 weeks on monday at 09:00 (UTC)", "Disable #" + digestID} {
		if p.status != http.StatusOK || !strings.Contains(p.body, want) {
			t.Fatalf("the page lacks %q: %d\n%s", want, p.status, p.body)
		}
	}
	if strings.Contains(p.body, "Cancel wake #"+digestID) {
		t.Fatal("a trigger that is not a wake is offered for cancelling")
	}
	if p := h.post(t, "/triggers/"+digestID+"/toggle", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("toggle: %d %s", p.status, p.body)
	}
	if p := h.request(t, http.MethodGet, "/triggers?notice=toggled", nil); !strings.Contains(p.body, "Enable #"+digestID) || !strings.Contains(p.body, "Trigger toggled.") {
		t.Fatalf("the toggled trigger is not shown disabled:\n%s", p.body)
	}
	if p := h.post(t, "/triggers/"+digestID+"/cancel_wake", url.Values{}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("cancelling a trigger that is no wake: %d; want 422", p.status)
	}
	if p := h.post(t, "/triggers/"+wakeID+"/cancel_wake", url.Values{}); p.status != http.StatusSeeOther {
		t.Fatalf("cancel: %d %s", p.status, p.body)
	}
	if p := h.request(t, http.MethodGet, "/triggers", nil); strings.Contains(p.body, "Cancel wake #"+wakeID) {
		t.Fatal("the cancelled wake is still listed")
	}
	id, _ := strconv.ParseInt(wakeID, 10, 64)
	if text, _ := h.tool(t, "search_triggers", map[string]any{"id": id}); !strings.Contains(text, "Trigger not found: "+wakeID) {
		t.Fatalf("the cancelled wake still exists: %s", text)
	}
}
