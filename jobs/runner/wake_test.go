package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// call is one fake-agent CALL line.
func call(tool string, args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return "CALL " + tool + " " + string(b)
}

// A router spawns two children, watches both, and sleeps. Each child reports to it
// (message_parent) and comes to rest; the router is woken by each watcher in turn — re-arming on
// the second child from the first wake — and holds both reports at the end. Nothing polls: the
// router's only tool calls are the spawns and the wakes.
func TestARouterSleepsOnItsChildrenAndIsWokenWithBothReports(t *testing.T) {
	e := shared(t)
	events := []any{"session_needs_input", "session_failed", "session_archived"}
	child := func(report string, delay float64) map[string]any {
		return map[string]any{"agent_root": "child", "parent_session_id": "${ZIMMER_SESSION_ID}", "custom_metadata": map[string]any{"runner_test_env": e.dataDir},
			"prompt": fmt.Sprintf("SLEEP %g\n%s", delay, call("action_session", map[string]any{"action": "message_parent", "reason": "other", "message": report}))}
	}
	rearm := call("wake_me_up_when_session_changes_state", map[string]any{"watched_session_id": "${b}", "event_names": events, "prompt": "WOKEN by the second child"})
	router := strings.Join([]string{
		call("start_session", child("report from A", 0)), `SAVE a \*\*ID:\*\* (\d+)`,
		call("start_session", child("report from B", 4)), `SAVE b \*\*ID:\*\* (\d+)`,
		call("wake_me_up_when_session_changes_state", map[string]any{"watched_session_id": "${a}", "event_names": events, "prompt": "WOKEN by the first child\n" + rearm}),
		call("wake_me_up_when_session_changes_state", map[string]any{"watched_session_id": "${b}", "event_names": events, "prompt": "WOKEN by the second child"}),
	}, "\n")
	// The ids in the JSON are strings until the agent fills them: unquote the placeholders so
	// they become numbers.
	for _, k := range []string{"a", "b", "ZIMMER_SESSION_ID"} {
		router = strings.ReplaceAll(router, `"${`+k+`}"`, "${"+k+"}")
		router = strings.ReplaceAll(router, `\"${`+k+`}\"`, "${"+k+"}")
	}
	id := e.create(t, map[string]any{"agent_root": "parent", "prompt": router})
	final := e.waitFor(t, id, "both wakes and both reports", 90*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && strings.Contains(allPrompts(e, t, id), "WOKEN by the second child")
	})
	prompts := allPrompts(e, t, id)
	for _, want := range []string{"report from A", "report from B", "WOKEN by the first child", "WOKEN by the second child"} {
		if !strings.Contains(prompts, want) {
			t.Fatalf("the router never saw %q; its turns:\n%s", want, prompts)
		}
	}
	wakes, err := e.ops.ArmedWakes(context.Background(), id)
	if err != nil || len(wakes) != 0 || final.Status != session.StatusNeedsInput {
		t.Fatalf("the router ends %s with %d wakes armed (%v); want it resting with none", final.Status, len(wakes), err)
	}
	// No polling: every tool the router called is a spawn or a wake, and it took a bounded
	// number of turns (its task, the two reports, the two wakes).
	for _, line := range e.transcript(t, id) {
		msg, _ := line["message"].(map[string]any)
		content, _ := msg["content"].([]any)
		for _, c := range content {
			if item, _ := c.(map[string]any); item["type"] == "tool_use" {
				if name := item["name"]; name != "start_session" && name != "wake_me_up_when_session_changes_state" {
					t.Fatalf("the router called %v: a wait must not poll", name)
				}
			}
		}
	}
	n := len(turns(e.transcript(t, id)))
	t.Logf("the router took %d turns:\n%s", n, firstLines(e, t, id))
	if n > 5 {
		t.Fatalf("the router took %d turns; want its task, two reports and two wakes at most", n)
	}
}

// allPrompts joins the prompts of every turn the router took.
func allPrompts(e *env, t *testing.T, id int64) string {
	var out []string
	for _, turn := range turns(e.transcript(t, id)) {
		p, _ := turn["prompt"].(string)
		out = append(out, p)
	}
	return strings.Join(out, "\n----\n")
}

// firstLines is the first line of each of the router's turns, for the log.
func firstLines(e *env, t *testing.T, id int64) string {
	var out []string
	for _, turn := range turns(e.transcript(t, id)) {
		p, _ := turn["prompt"].(string)
		first, _, _ := strings.Cut(p, "\n")
		out = append(out, fmt.Sprintf("%v: %.80s", turn["reason"], first))
	}
	return strings.Join(out, "\n")
}
