package mcp

import (
	"context"
	"fmt"
)

// The runner-bound actions of action_session: they act through the session runner, which
// notices a pause or a restart on its next tick (see jobs/runner).

// actPause halts a running turn: the runner terminates its process group and the session
// rests in needs_input with paused_by=user.
func actPause(ctx context.Context, a *actionCall) (string, error) {
	s, err := a.h.ops.Pause(ctx, a.sess.ID)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Session Paused", s)
	b.field("Status", s.Status)
	b.blank()
	b.line("The running turn is being terminated. A follow_up resumes the session.")
	return b.String(), nil
}

// actRestart resumes a failed or idle session with the recovery nudge, or with its original
// prompt when it failed before its agent saw a prompt.
func actRestart(ctx context.Context, a *actionCall) (string, error) {
	s, err := a.h.ops.Restart(ctx, a.sess.ID)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Session Restarted", s)
	b.field("Status", s.Status)
	if s.JobID != nil {
		b.field("Job ID", *s.JobID)
	}
	return b.String(), nil
}

// actFork copies the session's settings and its transcript up to message_index into a new
// waiting session.
func actFork(ctx context.Context, a *actionCall) (string, error) {
	n, ok := a.args.integer("message_index")
	if !ok {
		return "", required("message_index", "fork", " Pass the transcript line to fork at (0 is the first).")
	}
	at := int(n)
	fork, err := a.h.ops.Fork(ctx, a.sess.ID, &at)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Session Forked", fork)
	b.field("Forked From", fmt.Sprintf("session #%d at message %d", a.sess.ID, at))
	b.field("Status", fork.Status)
	b.blank()
	b.line("The fork waits for its first follow_up, which starts a fresh conversation beside the copied transcript.")
	return b.String(), nil
}

// actRefresh re-reads the session's transcript from disk into the token ledger.
func actRefresh(ctx context.Context, a *actionCall) (string, error) {
	s, message, err := a.h.ops.Refresh(ctx, a.sess.ID)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Transcript Refreshed", s)
	b.line(message)
	return b.String(), nil
}
