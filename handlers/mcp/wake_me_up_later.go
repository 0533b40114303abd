package mcp

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/trigger"
)

// wakeFollowUpNote is what every wake result and both wake tools' descriptions say about
// follow-ups, message_parent reports included.
const wakeFollowUpNote = "A follow-up does not cancel the wake: a follow_up, a human's message or a child's " +
	"message_parent report (which is a follow-up) is delivered as a turn, and the session sleeps again on its wake afterwards. " +
	"Only a restart, archiving the session, or cancelling the wake at /triggers ends it."

func wakeMeUpLaterTool() *toolDef {
	return &toolDef{name: "wake_me_up_later", group: groupTriggers, write: true, composites: []string{compositeSelf},
		full: variant{
			description: "Sleep a session and wake it at a wall-clock time with a prompt: creates a one-time trigger. " +
				"session_id defaults to the session this connection was written for. wake_at is a naive ISO-8601 " +
				"datetime (no offset) read in timezone (default UTC), more than 30 seconds ahead of the server's time. " +
				wakeFollowUpNote,
			schema: newSchema(fields{
				"session_id": sessionRef("The session to wake; defaults to this connection's session."),
				"wake_at":    str("When, e.g. 2026-04-15T14:30:00 (no UTC offset)."),
				"timezone":   str("IANA time zone wake_at is read in (default UTC)."),
				"prompt":     str("What the session is told when it wakes."),
			}, "wake_at", "prompt"),
			run: runWakeLater,
		}}
}

var utcOffset = regexp.MustCompile(`[+-]\d{2}:?\d{2}$`)

func runWakeLater(ctx context.Context, c *call) (string, error) {
	sess, err := c.selfSession(ctx, "session_id")
	if err != nil {
		return "", err
	}
	wakeAt, tz := c.args.text("wake_at"), c.args.text("timezone")
	if tz == "" {
		tz = "UTC"
	}
	refuse := func(detail string) error {
		return fail("Could not parse wake_at %q with timezone %q: %s. No trigger was created and no session state was changed.", wakeAt, tz, detail)
	}
	if strings.Contains(wakeAt, "T") && utcOffset.MatchString(wakeAt) {
		return "", refuse(`wake_at must not include a UTC offset (e.g., "+05:00"); send the local time and name its zone in timezone`)
	}
	loc, err := trigger.Location(tz)
	if _, perr := trigger.ParseLocal(wakeAt, time.UTC); perr != nil {
		return "", refuse(perr.Error())
	}
	if err != nil {
		return "", refuse(err.Error())
	}
	if strings.HasSuffix(wakeAt, "Z") && tz != "UTC" && tz != "Etc/UTC" {
		return "", refuse(`a trailing "Z" means UTC, but timezone is ` + tz + `; drop the Z or send timezone UTC`)
	}
	at, err := trigger.ParseLocal(wakeAt, loc)
	if err != nil {
		return "", refuse(err.Error())
	}
	now := c.h.ops.Now().UTC()
	if !at.After(now.Add(orchestrator.WakeLead)) {
		return "", fail("wake_at %q (timezone: %s) resolves to %s UTC, which is in the past or within 30 seconds of the current server time (%s UTC). "+
			"Recompute relative to the current server time shown in the tool description and call again — wake_at must be more than 30 seconds in the future.",
			wakeAt, tz, at.UTC().Format("2006-01-02T15:04:05"), now.Format("2006-01-02T15:04:05"))
	}
	normalized := strings.TrimSuffix(wakeAt, "Z")
	if len(normalized) == len("2006-01-02T15:04") {
		normalized += ":00"
	}
	t, slept, err := c.h.ops.WakeAt(ctx, orchestrator.WakeAtParams{SessionID: sess.ID, WakeAt: normalized, Timezone: tz, At: at, Prompt: c.args.text("prompt")})
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Wake-Up Scheduled Successfully")
	b.field("Session ID", sess.ID)
	b.field("Wake At", fmt.Sprintf("%s (%s)", normalized, tz))
	b.field("Trigger ID", t.ID)
	b.field("Trigger Name", t.Name)
	wakeNotes(&b, slept.Status == session.StatusRunning)
	return b.String(), nil
}

// wakeNotes close both wake tools' results.
func wakeNotes(b *doc, running bool) {
	b.blank()
	if running {
		b.line("End your turn now: the session sleeps when this turn ends and wakes with the prompt above.")
	} else {
		b.line("The session is asleep now and wakes with the prompt above.")
	}
	b.line("Messages that arrive while it sleeps are delivered as turns of their own; after each the session sleeps again.")
	b.line("When any of this session's wakes fires, its other wakes are consumed with it: arm the next one from the woken turn.")
	b.line(wakeFollowUpNote)
}

// ownWakeLines names the target's armed wakes under a follow-up's result (a follow-up never
// cancels one).
func ownWakeLines(ctx context.Context, c *call, b *doc, sessionID int64) error {
	list, err := c.h.ops.ArmedWakes(ctx, sessionID)
	if err != nil {
		return err
	}
	for _, t := range list {
		b.field("Its own wake-up", orchestrator.WakeLine(t)+" — still armed: this message does not cancel it, and the session sleeps again after this turn")
	}
	return nil
}
