package mcp

import "context"

func wakeMeUpLaterTool() *toolDef {
	return &toolDef{name: "wake_me_up_later", group: groupTriggers, write: true, composites: []string{compositeSelf},
		full: variant{
			description: "Sleep a session and wake it at a wall-clock time with a prompt: creates a one-time trigger. " +
				"session_id defaults to the session this connection was written for. wake_at is a naive ISO-8601 " +
				"datetime (no offset) read in timezone (default UTC), more than 30 seconds ahead. A follow-up does not " +
				"cancel the wake. Not available on this deployment yet: it needs " + needsTriggers + ".",
			schema: newSchema(fields{
				"session_id": sessionRef("The session to wake; defaults to this connection's session."),
				"wake_at":    str("When, e.g. 2026-04-15T14:30:00 (no UTC offset)."),
				"timezone":   str("IANA time zone wake_at is read in (default UTC)."),
				"prompt":     str("What the session is told when it wakes."),
			}, "wake_at", "prompt"),
			run: func(ctx context.Context, c *call) (string, error) {
				if _, err := c.selfSession(ctx, "session_id"); err != nil {
					return "", err
				}
				return "", unavailable(c.name, needsTriggers)
			},
		}}
}
