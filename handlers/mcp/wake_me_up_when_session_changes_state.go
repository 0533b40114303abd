package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

var wakeEvents = []string{"session_needs_input", "session_failed", "session_archived"}

func wakeMeUpWhenSessionChangesStateTool() *toolDef {
	return &toolDef{name: "wake_me_up_when_session_changes_state", group: groupTriggers, write: true,
		composites: []string{compositeSelf}, full: variant{
			description: "Sleep a session until another session reaches needs_input, failed or archived, then wake it with " +
				"a prompt. event_names takes the whole set at once (one trigger, one condition per event); the singular " +
				"event_name still works. session_needs_input fires only once the watched session has settled: a turn " +
				"boundary it leaves at once is not a rest. session_id defaults to this connection's session. " + wakeFollowUpNote,
			schema: newSchema(fields{
				"session_id":         sessionRef("The session to wake; defaults to this connection's session."),
				"watched_session_id": integer("The session to watch.").min(1),
				"event_name":         str("One event to wake on.").enum(wakeEvents...),
				"event_names":        list("Every event to wake on.", str("").enum(wakeEvents...)),
				"prompt":             str("What the session is told when it wakes."),
			}, "watched_session_id", "prompt"),
			run: runWakeOnState,
		}}
}

// runWakeOnState checks, in order: the events, the requester, that it is not watching itself,
// the watched session and the root fence on it (a session waking itself is never fenced).
func runWakeOnState(ctx context.Context, c *call) (string, error) {
	var events []string
	if list := c.args.list("event_names"); list != nil {
		for _, ev := range *list {
			if !slices.Contains(events, ev) {
				events = append(events, ev)
			}
		}
	}
	if ev := c.args.text("event_name"); ev != "" && !slices.Contains(events, ev) {
		events = append(events, ev)
	}
	if len(events) == 0 {
		return "", fail("Missing required arguments: event_names (or event_name) — one or more of %s.", strings.Join(wakeEvents, ", "))
	}
	requester, err := c.selfSession(ctx, "session_id")
	if err != nil {
		return "", err
	}
	watchedID, _ := c.args.integer("watched_session_id")
	if watchedID == requester.ID {
		return "", fail("watched_session_id (%d) is the same as the requester session id. A session cannot wake on its own state change; use wake_me_up_later for a deadline.", watchedID)
	}
	if !slices.Contains([]session.Status{session.StatusNeedsInput, session.StatusRunning, session.StatusWaiting}, requester.Status) {
		return "", fail("Session %d is in %q state and cannot be scheduled for wake-up. Only sessions in needs_input, running, waiting can be woken up.", requester.ID, requester.Status)
	}
	watched, err := c.h.ops.Get(ctx, watchedID)
	if isNotFound(err) {
		return "", fail("Could not look up watched session %d: session not found. Check the id with quick_search_sessions.", watchedID)
	}
	if err != nil {
		return "", err
	}
	if err := c.fenceSession(watched, "watch"); err != nil {
		return "", err
	}
	t, slept, err := c.h.ops.WakeOnState(ctx, orchestrator.WatchParams{SessionID: requester.ID, WatchedID: watchedID, Events: events, Prompt: c.args.text("prompt")})
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Wake-Up Scheduled Successfully")
	b.field("Session ID", requester.ID)
	b.field("Watching", fmt.Sprintf("session #%d — %s", watched.ID, oneLine(watched.DisplayTitle())))
	b.field("Events", strings.Join(events, ", "))
	b.field("Trigger ID", t.ID)
	b.field("Trigger Name", t.Name)
	wakeNotes(&b, slept.Status == session.StatusRunning)
	return b.String(), nil
}
