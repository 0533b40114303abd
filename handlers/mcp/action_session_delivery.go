package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// The two actions that deliver a message: follow_up to any session, message_parent from a
// session to whoever spawned it.

func actFollowUp(ctx context.Context, a *actionCall) (string, error) {
	prompt := a.args.str("prompt")
	if prompt == nil || strings.TrimSpace(*prompt) == "" {
		return "", required("prompt", "follow_up", "")
	}
	res, err := a.h.ops.FollowUp(ctx, a.sess.ID, orchestrator.FollowUpParams{
		Prompt: *prompt, Goal: a.args.str("goal"), ForceImmediate: a.args.flag("force_immediate"),
		ActingSessionID: a.args.text("acting_session_id"), Source: orchestrator.SourceMCPFollowUp,
	})
	if err != nil {
		return "", err
	}
	var b doc
	heading, message := "Follow-up Sent", "Follow-up prompt sent"
	switch res.Outcome {
	case orchestrator.FollowUpQueued:
		message = "Message queued (session is running). It will be sent when the agent completes its current task."
	case orchestrator.FollowUpImmediate:
		heading, message = "Follow-up Sent Immediately", "Follow-up prompt sent immediately: the running turn, if any, was asked to end"
	}
	head(&b, heading, res.Session)
	b.field("New Status", res.Session.Status)
	b.field("Message", message)
	if res.Session.RunningJobID != nil && res.Outcome != orchestrator.FollowUpQueued {
		b.field("Job ID", *res.Session.RunningJobID)
	}
	if err := queueDepth(ctx, a.call, &b, res); err != nil {
		return "", err
	}
	if err := ownWakeLines(ctx, a.call, &b, res.Session.ID); err != nil {
		return "", err
	}
	return b.String(), nil
}

// queueDepth reports the target's queue from the caller's side: where a queued message landed,
// or what is still pending behind one that was delivered — so a caller that just became fourth
// in line finds out now. A message's position is not the depth: a retired row holds one too.
func queueDepth(ctx context.Context, c *call, b *doc, res orchestrator.FollowUpResult) error {
	_, pending, err := c.h.ops.PendingMessages(ctx, res.Session.ID, 1)
	if err != nil {
		return err
	}
	if res.Outcome == orchestrator.FollowUpQueued {
		b.field("Queue", fmt.Sprintf("%d message(s) now pending for this session, this one included", pending))
		if pending > 1 {
			b.line("_Others are already waiting: read them with get_session or manage_enqueued_messages before adding more, and consolidate with update instead of restating._")
		}
		return nil
	}
	b.field("Still pending behind it", pending)
	return nil
}

func actMessageParent(ctx context.Context, a *actionCall) (string, error) {
	if _, err := a.ownSession(ctx, "session_id"); err != nil {
		return "", err
	}
	message := a.args.str("message")
	if message == nil || strings.TrimSpace(*message) == "" {
		return "", required("message", "message_parent", " Say what you could not do and why, in your own words.")
	}
	if a.args.text("reason") == "" {
		return "", required("reason", "message_parent", " Use wrong_scope, missing_tools or other.")
	}
	res, err := a.h.ops.MessageParent(ctx, orchestrator.MessageParentParams{
		Child: a.sess.ID, Message: *message, Reason: a.args.text("reason"),
		ForceImmediate: a.args.flag("force_immediate"), UnarchiveParent: a.args.flag("unarchive_parent"),
		SessionURL: func(id int64) string { return sessionURL(a.call, id) },
	})
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Message Sent to Parent")
	b.field("From", fmt.Sprintf("session #%d", res.Child.ID))
	b.field("To", fmt.Sprintf("session #%d — %s", res.Parent.ID, oneLine(res.Parent.DisplayTitle())))
	b.field("Reason", a.args.text("reason"))
	if res.Unarchived {
		b.field("Parent restored", "it was archived and has been unarchived to take the report")
	}
	switch res.Delivery.Outcome {
	case orchestrator.FollowUpQueued:
		b.field("Delivery", "queued: your parent is running and reads it when its current turn ends")
	case orchestrator.FollowUpImmediate:
		b.field("Delivery", "immediate: your parent's running turn was asked to end and the report is its next prompt")
	default:
		b.field("Delivery", "delivered now: your parent was idle and has resumed with the report")
	}
	if err := queueDepth(ctx, a.call, &b, res.Delivery); err != nil {
		return "", err
	}
	if err := ownWakeLines(ctx, a.call, &b, res.Parent.ID); err != nil {
		return "", err
	}
	b.blank()
	b.line("Your words reached your parent quoted, inside Zimmer's framing (your id, title, URL and reason), so it cannot mistake them for a human. End your turn unless you have other work.")
	return b.String(), nil
}
