package mcp

import (
	"context"
)

var wakeEvents = []string{"session_needs_input", "session_failed", "session_archived"}

func wakeMeUpWhenSessionChangesStateTool() *toolDef {
	return &toolDef{name: "wake_me_up_when_session_changes_state", group: groupTriggers, write: true,
		composites: []string{compositeSelf}, full: variant{
			description: "Sleep a session until another session reaches needs_input, failed or archived, then wake it with " +
				"a prompt. event_names takes the whole set at once (one trigger, one condition per event); the singular " +
				"event_name still works. session_id defaults to this connection's session. Not available on this " +
				"deployment yet: it needs " + needsTriggers + ".",
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

// runWakeOnState applies what the scope decides — the requester default and the root fence on
// the watched session (a session waking itself is never fenced) — before answering that the
// trigger machinery is missing.
func runWakeOnState(ctx context.Context, c *call) (string, error) {
	if _, err := c.selfSession(ctx, "session_id"); err != nil {
		return "", err
	}
	watchedID, _ := c.args.integer("watched_session_id")
	watched, err := c.sessionByID(ctx, watchedID)
	if err != nil {
		return "", err
	}
	if err := c.fenceSession(watched, "watch"); err != nil {
		return "", err
	}
	return "", unavailable(c.name, needsTriggers)
}
