package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// A signed Slack event reaches the slack triggers whose channel, thread and event type it
// matches: each matching condition gets one fire task, keyed on Slack's event id, so Slack's
// retry of the event queues nothing more.
func TestSlackEventsFireTheSlackTriggersTheyMatch(t *testing.T) {
	h := setupHumans(t, humansOpts{})
	user, channel := slackIDs(t)
	conds := map[string]map[string]any{
		"new_message": {"channel_id": channel},
		"thread":      {"channel_id": channel, "event_type": "passive_listen_thread", "thread_ts": "1712000000.000100"},
		"mention":     {"channel_id": channel, "event_type": "bot_mention"},
		"someone":     {"channel_id": channel, "allowed_user_ids": []any{"UNOBODY"}},
	}
	condID := map[string]int64{}
	for name, cfg := range conds {
		status, out := h.mustREST(t, http.MethodPost, "/api/v1/triggers", map[string]any{"name": "slack " + name, "agent_root_name": "general-agent",
			"prompt_template":               "{{author}} said {{text}} in {{channel}}",
			"trigger_conditions_attributes": []any{map[string]any{"condition_type": "slack", "configuration": cfg}}})
		if status != http.StatusCreated {
			t.Fatalf("create %s: %d %v", name, status, out)
		}
		condID[name] = int64(out["trigger"].(map[string]any)["conditions"].([]any)[0].(map[string]any)["id"].(float64))
	}
	queued := func(cond, event string) bool {
		ok, err := h.queue.TaskQueued(context.Background(), tasks.LaneTriggers, fmt.Sprintf("trigger-fire:slack:%d:%s", condID[cond], event))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	top := slackMessage(user, channel, "channel", "1712000000.000100", "", "ship it")
	reply := slackMessage(user, channel, "channel", "1712000001.000200", "1712000000.000100", "in the thread")
	mention := map[string]any{"type": "event_callback", "event_id": "EvMention" + channel, "event": map[string]any{"type": "app_mention",
		"user": user, "channel": channel, "ts": "1712000002.000300", "text": "<@BOT> look"}}
	for _, body := range []map[string]any{top, top, reply, mention} { // top twice: Slack's retry
		if p := h.slackEvent(t, body, 0, slackSecret); p.status != http.StatusOK {
			t.Fatalf("event: %d %s", p.status, p.body)
		}
	}
	topID, replyID, mentionID := top["event_id"].(string), reply["event_id"].(string), mention["event_id"].(string)
	want := map[string]map[string]bool{
		"new_message": {topID: true, replyID: false, mentionID: false},
		"thread":      {topID: false, replyID: true, mentionID: false},
		"mention":     {topID: false, replyID: false, mentionID: true},
		"someone":     {topID: false, replyID: false, mentionID: false},
	}
	for cond, events := range want {
		for ev, w := range events {
			if got := queued(cond, ev); got != w {
				t.Errorf("condition %s, event %s: fire queued %v; want %v", cond, ev, got, w)
			}
		}
	}
}
