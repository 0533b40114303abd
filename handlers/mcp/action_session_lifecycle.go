package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The lifecycle actions: archive (one or many), unarchive, and parking for the spot scheduler.

func actArchive(ctx context.Context, a *actionCall) (string, error) {
	s, err := a.archive(ctx, a.sess.ID, "")
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Session Archived", s)
	b.field("Status", s.Status)
	b.optField("Archived At", optTimestamp(s.ArchivedAt))
	b.optField("Trash After", optTimestamp(s.TrashAfter))
	b.field("Archived by", a.actor(""))
	b.blank()
	b.line("It stays restorable with unarchive until it is purged after the trash period.")
	return b.String(), nil
}

// archive archives one session under the two MCP refusals: pending queued messages (unless
// force), and another session's running turn — a connection may end only the turn of the
// session its URL names.
func (a *actionCall) archive(ctx context.Context, id int64, suffix string) (*session.Session, error) {
	return a.h.ops.Archive(ctx, id, orchestrator.ArchiveParams{
		Force: a.args.flag("force"), Actor: a.actor(suffix), Acting: a.args.text("acting_session_id"),
		Guard: func(u *session.Session) error {
			if u.Status == session.StatusRunning && !a.scope.IsCaller(u.ID) {
				return fail("Cannot archive session #%d: it is running a turn, and archiving would terminate that turn mid-flight. "+
					"One session may not end another's in-flight turn; only the session itself may (a connection whose URL names session_id=%d). "+
					"Wait for the turn to end (wake_me_up_when_session_changes_state on session_needs_input), or ask it to archive itself with a follow_up.",
					u.ID, u.ID)
			}
			return nil
		},
	})
}

// actor names who archives on the session's timeline: the declared acting session, or an
// undeclared caller of this surface. On the self-session surface the connection's own session
// is the declaration when none is passed.
func (a *actionCall) actor(suffix string) string {
	surface, undeclared := "the MCP API", "an undeclared MCP API caller"
	if a.self {
		surface, undeclared = "the self-session MCP server", "an undeclared self-session MCP server caller"
	}
	acting := a.args.text("acting_session_id")
	id, declared := session.ParseID(acting)
	if acting == "" && a.self && a.scope.SessionID != 0 {
		id, declared = a.scope.SessionID, true
	}
	phrase := undeclared
	if declared {
		phrase = fmt.Sprintf("session #%d via %s", id, surface)
	}
	return phrase + suffix
}

func actBulkArchive(ctx context.Context, a *actionCall) (string, error) {
	raw, _ := a.args["session_ids"].([]any)
	if len(raw) == 0 {
		return "", required("session_ids", "bulk_archive", " Pass a non-empty array of session ids.")
	}
	archived, skipped := 0, 0
	var errs []string
	for _, v := range raw {
		key := fmt.Sprint(v)
		id, err := a.h.ops.Resolve(ctx, key)
		var s *session.Session
		if err == nil {
			s, err = a.h.ops.Get(ctx, id)
		}
		if err != nil || s.Status == session.StatusArchived {
			skipped++ // unknown or already archived: nothing to do, as the original skips them
			continue
		}
		if _, err := a.archive(ctx, id, " (bulk)"); err != nil {
			errs = append(errs, fmt.Sprintf("  - Session %s: %s", key, a.h.errorText(a.call, err)))
			continue
		}
		archived++
	}
	var b doc
	b.heading(2, "Bulk Archive Complete")
	b.field("Archived", archived)
	b.field("Skipped (unknown or already archived)", skipped)
	b.field("Errors", len(errs))
	for _, e := range errs {
		b.line(e)
	}
	return b.String(), nil
}

func actUnarchive(ctx context.Context, a *actionCall) (string, error) {
	s, err := a.h.ops.Unarchive(ctx, a.sess.ID)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Session Unarchived", s)
	b.field("New Status", s.Status)
	b.blank()
	b.line("Its workspace and runtime config are prepared again on its next run; send a follow_up to give it work.")
	return b.String(), nil
}

func actPauseIntoSpotQueue(ctx context.Context, a *actionCall) (string, error) {
	// The self-session variant does not offer halt and ignores it if passed: a session that
	// halted itself would kill the process waiting for this reply.
	halt := !a.self && a.args.flag("halt")
	s, park, err := a.h.ops.PauseIntoSpotQueue(ctx, a.sess.ID, halt)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Parked in the Spot Queue", s)
	b.field("Status", s.Status)
	switch {
	case park.AfterTurn:
		b.field("When", "after the current turn: it finishes, then sleeps")
	case park.Halted:
		b.field("When", "now: its running turn was halted where it stood (the runner ends the process within a tick)")
	default:
		b.field("When", "now")
	}
	b.field("Wake trigger", "none — the spot scheduler resumes it when a Claude Code account is under both quota targets and a slot is free")
	if a.self {
		b.blank()
		b.line("End your turn now.")
	}
	return b.String(), nil
}
