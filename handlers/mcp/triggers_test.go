package mcp_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

func trig(action string, extra map[string]any) map[string]any {
	out := map[string]any{"action": action}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

var idLine = regexp.MustCompile(`- \*\*ID:\*\* (\d+)`)

func triggerIDIn(t *testing.T, text string) int64 {
	t.Helper()
	m := idLine.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no trigger id in %q", text)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

var conditionIDs = regexp.MustCompile(`\[id (\d+)\] (\w+)`)

func TestActionTriggerCreatesEditsTogglesInvokesAndDeletesATrigger(t *testing.T) {
	t.Parallel()
	e := setup(t)
	name := fmt.Sprintf("nightly-%d", time.Now().UnixNano())
	created := e.ok(t, "/mcp", "action_trigger", trig("create", map[string]any{"name": name, "agent_root_name": "general-agent",
		"prompt_template": "Triage {{repo}} at {{time}}", "trigger_type": "schedule",
		"configuration": map[string]any{"cron": "0 3 * * *", "timezone": "Europe/Berlin"}, "max_sessions_per_minute": 3}))
	contains(t, created, "## Trigger Created", "- **Name:** "+name, "- **Status:** enabled", "- **Max Sessions/Minute:** 3",
		"- **Scheduling Class:** spot (default for its conditions)", "- **Precedence:** (none predefined)", "cron 0 3 * * * (Europe/Berlin)")
	id := triggerIDIn(t, created)
	first := conditionIDs.FindStringSubmatch(created)[1]
	firstID, _ := strconv.ParseInt(first, 10, 64)

	byID := e.ok(t, "/mcp", "search_triggers", map[string]any{"id": id})
	contains(t, byID, "## Trigger: "+name, "### Conditions", "- **[id "+first+"] schedule**", `"cron": "0 3 * * *"`, "Triage {{repo}} at {{time}}",
		"- **Skills:** (agent root defaults)")
	listed := e.ok(t, "/mcp", "search_triggers", map[string]any{"trigger_type": "schedule", "per_page": 100})
	contains(t, listed, fmt.Sprintf("### %s (ID: %d)", name, id), "MCP Servers: (none)")

	// The conditions upsert: append one, edit one by id; unmentioned rows stay.
	updated := e.ok(t, "/mcp", "action_trigger", trig("update", map[string]any{"id": id, "conditions": []any{
		map[string]any{"trigger_type": "system_event", "configuration": map[string]any{"event_name": "quota_available"}},
		map[string]any{"id": firstID, "configuration": map[string]any{"unit": "hours", "interval": 2}},
	}}))
	contains(t, updated, "## Trigger Updated", "every 2 hours (UTC)", "system event quota_available", "- **Scheduling Class:** priority (default for its conditions)")
	e.refused(t, "/mcp", "action_trigger", trig("update", map[string]any{"id": id, "conditions": []any{map[string]any{"id": 999999999, "remove": true}}}),
		fmt.Sprintf("references condition 999999999, which does not belong to trigger %d (its conditions are: %s, ", id, first))
	removed := e.ok(t, "/mcp", "action_trigger", trig("update", map[string]any{"id": id, "conditions": []any{map[string]any{"id": firstID, "remove": true}}}))
	if conditionIDs.FindAllString(removed, -1) == nil || len(conditionIDs.FindAllString(removed, -1)) != 1 {
		t.Fatalf("removing one of two conditions left %v", conditionIDs.FindAllString(removed, -1))
	}
	toggled := e.ok(t, "/mcp", "action_trigger", trig("toggle", map[string]any{"id": id}))
	contains(t, toggled, "## Trigger Toggled", "- **New Status:** disabled")

	// A disabled trigger can still be invoked, and stays disabled.
	invoked := e.ok(t, "/mcp", "action_trigger", trig("invoke", map[string]any{"id": id, "variables": map[string]any{"repo": "acme/app", "ignored": "x"}}))
	contains(t, invoked, "## Trigger Invoked", "- **Session Status:** waiting", "- **Sessions Created (lifetime):** 1")
	sid, _ := strconv.ParseInt(regexp.MustCompile(`- \*\*Session:\*\* #(\d+)`).FindStringSubmatch(invoked)[1], 10, 64)
	spawned, err := e.ops.Get(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if spawned.Prompt == nil || *spawned.Prompt != "Triage acme/app at "+time.Now().UTC().Format("15:04") && *spawned.Prompt != "Triage acme/app at "+time.Now().UTC().Add(-time.Minute).Format("15:04") {
		t.Fatalf("the invoked session's prompt is %v", spawned.Prompt)
	}
	if spawned.Genesis != session.GenesisAPI || session.BagInt(spawned.Metadata, session.MetaTriggerID) != int(id) {
		t.Fatalf("an invoked session has genesis %s and trigger_id %v; want api and %d", spawned.Genesis, spawned.Metadata[session.MetaTriggerID], id)
	}
	contains(t, e.ok(t, "/mcp", "search_triggers", map[string]any{"id": id}), "- **Status:** disabled", "- **Sessions Created:** 1")

	contains(t, e.ok(t, "/mcp", "action_trigger", trig("delete", map[string]any{"id": id})), fmt.Sprintf("## Trigger Deleted\n\nTrigger %d has been deleted.", id))
	e.refused(t, "/mcp", "search_triggers", map[string]any{"id": id}, fmt.Sprintf("Trigger not found: %d", id))
}

func TestActionTriggerRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	base := map[string]any{"name": "n", "agent_root_name": "general-agent", "prompt_template": "p"}
	with := func(extra map[string]any) map[string]any {
		out := trig("create", base)
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	schedule := map[string]any{"unit": "minutes", "interval": 5}
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"unknown action", trig("explode", nil), "Invalid arguments: action must be one of: create, update, delete, toggle, invoke"},
		{"create without the essentials", trig("create", map[string]any{"name": "n"}), `"name", "agent_root_name", and "prompt_template" are required for the "create" action, plus either "trigger_type" or a "conditions" array.`},
		{"by-id action without an id", trig("toggle", nil), `"id" is required for the "toggle" action.`},
		{"a trigger that does not exist", trig("invoke", map[string]any{"id": 999999999}), "Trigger not found: 999999999"},
		{"empty conditions", with(map[string]any{"conditions": []any{}}), `"conditions" was sent empty.`},
		{"conditions and the flat pair", with(map[string]any{"trigger_type": "schedule", "configuration": schedule,
			"conditions": []any{map[string]any{"trigger_type": "schedule", "configuration": schedule}}}), `"conditions" cannot be combined with the top-level "trigger_type"/"configuration" pair`},
		{"a condition without a type", with(map[string]any{"conditions": []any{map[string]any{"configuration": schedule}}}), `conditions[0] is missing "trigger_type".`},
		{"enqueue_messages without reuse", with(map[string]any{"trigger_type": "schedule", "configuration": schedule, "enqueue_messages": true}),
			"enqueue_messages requires reuse_session: true in the same call"},
		{"a slack condition without a channel", with(map[string]any{"trigger_type": "slack", "configuration": map[string]any{}}), "Validation failed: slack condition needs a channel_id"},
		{"a bad time zone", with(map[string]any{"trigger_type": "schedule", "configuration": map[string]any{"cron": "* * * * *", "timezone": "Mars/Olympus"}}), `"Mars/Olympus" is not a recognized IANA timezone name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { e.refused(t, "/mcp", "action_trigger", c.args, c.want) })
	}
	// An unknown root is stored with a warning rather than refused.
	warned := e.ok(t, "/mcp", "action_trigger", trig("create", map[string]any{"name": "later", "agent_root_name": "not-yet-in-catalog",
		"prompt_template": "p", "trigger_type": "schedule", "configuration": schedule}))
	contains(t, warned, `⚠️ agent_root_name "not-yet-in-catalog" does not resolve`)
}

func TestTriggersAreFencedByAllowedAgentRoots(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schedule := map[string]any{"unit": "days", "interval": 1, "time": "09:00"}
	outside := triggerIDIn(t, e.ok(t, "/mcp", "action_trigger", trig("create", map[string]any{"name": "outside", "agent_root_name": "general-agent",
		"prompt_template": "p", "trigger_type": "schedule", "configuration": schedule})))
	fenced := "/mcp?tool_groups=triggers&allowed_agent_roots=zimmer"
	e.refused(t, fenced, "action_trigger", trig("create", map[string]any{"name": "x", "agent_root_name": "general-agent", "prompt_template": "p",
		"trigger_type": "schedule", "configuration": schedule}), `agent root "general-agent" is not permitted`)
	e.refused(t, fenced, "search_triggers", map[string]any{"id": outside}, fmt.Sprintf("Trigger not found: %d", outside))
	e.refused(t, fenced, "action_trigger", trig("invoke", map[string]any{"id": outside}), fmt.Sprintf("Trigger not found: %d", outside))
	e.refused(t, fenced, "action_trigger", trig("create", map[string]any{"name": "x", "agent_root_name": "zimmer", "prompt_template": "p",
		"trigger_type": "schedule", "configuration": schedule, "catalog_plugins": []any{}}), "catalog_plugins is refused on a connection restricted to agent roots")
	inside := e.ok(t, fenced, "action_trigger", trig("create", map[string]any{"name": "inside", "agent_root_name": "zimmer", "prompt_template": "p",
		"trigger_type": "schedule", "configuration": schedule}))
	listed := e.ok(t, fenced, "search_triggers", map[string]any{"per_page": 100})
	contains(t, listed, fmt.Sprintf("(ID: %d)", triggerIDIn(t, inside)))
	if regexp.MustCompile(fmt.Sprintf(`\(ID: %d\)`, outside)).MatchString(listed) {
		t.Fatal("a fenced listing shows a trigger on a root outside the fence")
	}
}

func TestWakeMeUpLaterRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	e := setup(t)
	me := e.fixture(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })
	soon := time.Now().UTC().Add(10 * time.Second).Format("2006-01-02T15:04:05")
	cases := []struct{ wakeAt, tz, want string }{
		{"2030-01-01T09:00:00+05:00", "", `wake_at must not include a UTC offset (e.g., "+05:00")`},
		{"2030-01-01", "", "must be an ISO-8601 datetime like"},
		{"2030-01-01T09:00:00", "Mars/Olympus", `"Mars/Olympus" is not a recognized IANA timezone name`},
		{"2030-01-01T09:00:00Z", "Europe/Berlin", `a trailing "Z" means UTC`},
		{soon, "", "which is in the past or within 30 seconds of the current server time"},
	}
	for _, c := range cases {
		args := map[string]any{"wake_at": c.wakeAt, "prompt": "p"}
		if c.tz != "" {
			args["timezone"] = c.tz
		}
		text := e.refused(t, selfURL(me), "wake_me_up_later", args, c.want)
		if c.wakeAt != soon {
			contains(t, text, "No trigger was created and no session state was changed.")
		}
	}
	if got := e.reload(t, me); got.Status != session.StatusNeedsInput {
		t.Fatalf("a refused wake moved the session to %s", got.Status)
	}
	archived := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	e.refused(t, selfURL(archived), "wake_me_up_later", map[string]any{"wake_at": "2030-01-01T09:00", "prompt": "p"},
		fmt.Sprintf(`Session %d is in "archived" state and cannot be scheduled for wake-up.`, archived.ID))
	ok := e.ok(t, selfURL(me), "wake_me_up_later", map[string]any{"wake_at": "2030-01-01T09:00", "timezone": "Europe/Berlin", "prompt": "p"})
	contains(t, ok, "- **Wake At:** 2030-01-01T09:00:00 (Europe/Berlin)", fmt.Sprintf("- **Trigger Name:** Wake session #%d at 2030-01-01T09:00:00", me.ID))
	if got := e.reload(t, me); got.Status != session.StatusWaiting {
		t.Fatalf("arming a wake left an idle session %s; want it asleep", got.Status)
	}
}

func TestWatchingRefusesItselfAndWhatCannotFire(t *testing.T) {
	t.Parallel()
	e := setup(t)
	me := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	failed := e.fixture(t, func(s *session.Session) { s.Status = session.StatusFailed })
	archived := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	watch := func(id int64, events ...any) map[string]any {
		return map[string]any{"watched_session_id": id, "event_names": events, "prompt": "p"}
	}
	e.refused(t, selfURL(me), "wake_me_up_when_session_changes_state", watch(me.ID, "session_failed"), fmt.Sprintf("watched_session_id (%d) is the same as the requester session id.", me.ID))
	e.refused(t, selfURL(me), "wake_me_up_when_session_changes_state", watch(999999999, "session_failed"), "Could not look up watched session 999999999: session not found.")
	e.refused(t, selfURL(me), "wake_me_up_when_session_changes_state", watch(failed.ID, "session_failed"), "would never fire")
	e.refused(t, selfURL(me), "wake_me_up_when_session_changes_state", watch(archived.ID, "session_needs_input"), "would never fire")
	e.refused(t, selfURL(me), "wake_me_up_when_session_changes_state", map[string]any{"watched_session_id": failed.ID, "prompt": "p"}, "event_names (or event_name)")
	armed := e.ok(t, selfURL(me), "wake_me_up_when_session_changes_state", watch(failed.ID, "session_needs_input", "session_archived"))
	contains(t, armed, "- **Events:** session_needs_input, session_archived", "End your turn now: the session sleeps when this turn ends")
	if got := e.reload(t, me); !got.Flag(session.MetaPendingSleep) {
		t.Fatal("arming a wake from a running turn did not ask it to sleep when the turn ends")
	}
}

func TestAFollowUpOrAReportToASleepingSessionSaysItsWakeStaysArmed(t *testing.T) {
	t.Parallel()
	e := setup(t)
	parent := e.fixture(t, func(s *session.Session) { s.Status = session.StatusNeedsInput })
	child := e.fixture(t, func(s *session.Session) { s.ParentSessionID = &parent.ID })
	e.ok(t, selfURL(parent), "wake_me_up_later", map[string]any{"wake_at": "2031-05-01T08:00:00", "prompt": "deadline"})
	report := e.ok(t, selfURL(child), "action_session", map[string]any{"action": "message_parent", "message": "done", "reason": "other"})
	contains(t, report, "- **Its own wake-up:** trigger #", "wakes it at 2031-05-01T08:00:00 (UTC) — still armed: this message does not cancel it")
	followed := e.ok(t, "/mcp", "action_session", act(parent.ID, "follow_up", map[string]any{"prompt": "and another thing"}))
	contains(t, followed, "- **Its own wake-up:** trigger #")
	wakes, err := e.ops.ArmedWakes(context.Background(), parent.ID)
	if err != nil || len(wakes) != 1 {
		t.Fatalf("after a report and a follow-up the parent has %d armed wakes (%v); want its one wake", len(wakes), err)
	}
}
