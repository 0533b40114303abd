package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func manageEnqueuedMessagesTool() *toolDef {
	return &toolDef{name: "manage_enqueued_messages", group: groupSessions, write: true, full: variant{
		description: "A session's message queue: messages wait there until its current turn ends. list / get read it; " +
			"create appends (and reports the queue depth you joined); update, delete and reorder consolidate it — " +
			"prefer them to appending a restatement; send_now stages a message and interrupts the running turn with " +
			"it; interrupt does the same for a message already queued (it jumps to the front, the rest keep their " +
			"order). An interrupt costs the running turn: queue additive messages, interrupt the ones that change the " +
			"plan. goal is the message's own goal, applied when it is delivered. Set acting_session_id to your own " +
			"session id on create, send_now and interrupt when you are a session.",
		schema: newSchema(paging(fields{
			"session_id":        sessionRef("The session whose queue it is: id or slug."),
			"action":            queueVerbs.enum(),
			"message_id":        integer("The message (get, update, delete, reorder, interrupt)."),
			"content":           str("create, send_now, update: the message.").maxLen(session.MaxPrompt),
			"goal":              str("create, send_now, update: the message's goal (update: blank clears it).").maxLen(session.MaxGoal),
			"position":          integer("reorder: the new position (1 is next).").min(1),
			"acting_session_id": sessionRef("Your own session id, when you are a session (records you as a senior of the target)."),
		}), "session_id", "action"),
		run: runManageQueue,
	}}
}

// queueAction is one verb of manage_enqueued_messages.
type queueAction func(ctx context.Context, c *call, s *session.Session) (string, error)

var queueVerbs = verbs[queueAction]{
	{"list", queueList}, {"get", queueGet}, {"create", queueCreate}, {"update", queueUpdate},
	{"delete", queueDelete}, {"reorder", queueReorder}, {"interrupt", queueInterrupt}, {"send_now", queueSendNow},
}

func runManageQueue(ctx context.Context, c *call) (string, error) {
	s, err := c.sessionArg(ctx, "session_id")
	if err != nil {
		return "", err
	}
	run, err := queueVerbs.lookup(c.args.text("action"))
	if err != nil {
		return "", err
	}
	return run(ctx, c, s)
}

// messageID is the message_id argument the named action needs.
func messageID(c *call) (int64, error) {
	id, ok := c.args.integer("message_id")
	if !ok {
		return 0, required("message_id", c.args.text("action"), "")
	}
	return id, nil
}

// content is the content argument the named action needs, non-blank.
func content(c *call) (string, error) {
	text := c.args.str("content")
	if text == nil || strings.TrimSpace(*text) == "" {
		return "", required("content", c.args.text("action"), "")
	}
	return *text, nil
}

func queueList(ctx context.Context, c *call, s *session.Session) (string, error) {
	list, page, err := c.h.ops.ListMessages(ctx, s.ID, orchestrator.MessageListParams{
		Page: intOr(c.args, "page", 1), PerPage: intOr(c.args, "per_page", orchestrator.DefaultPerPage)})
	if err != nil {
		return "", err
	}
	var b doc
	if page.TotalCount == 0 {
		b.heading(2, "Enqueued Messages")
		b.line("No enqueued messages found.")
		return b.String(), nil
	}
	b.heading(2, fmt.Sprintf("Enqueued Messages (%d total, page %d of %d)", page.TotalCount, page.Page, page.TotalPages))
	b.field("Session ID", s.ID)
	for _, m := range list {
		b.heading(3, fmt.Sprintf("Position %d (ID: %d)", m.Position, m.ID))
		b.field("Status", m.Status)
		b.field("Origin", m.Origin)
		b.field("Content", oneLine(preview(m.Content, 200)))
		if m.Goal != nil {
			b.field("Goal", oneLine(preview(*m.Goal, 200)))
		}
	}
	if page.Page < page.TotalPages {
		b.blank()
		b.linef("*More messages available. Use page=%d to see the next page.*", page.Page+1)
	}
	return b.String(), nil
}

func queueGet(ctx context.Context, c *call, s *session.Session) (string, error) {
	id, err := messageID(c)
	if err != nil {
		return "", err
	}
	m, err := c.h.ops.GetMessage(ctx, s.ID, id)
	if err != nil {
		return "", err
	}
	var b doc
	writeMessage(&b, "Enqueued Message", m)
	b.field("Created", timestamp(m.CreatedAt))
	b.heading(3, "Content")
	b.fence("", m.Content)
	return b.String(), nil
}

func writeMessage(b *doc, heading string, m *session.Message) {
	b.heading(2, heading)
	b.field("Message ID", m.ID)
	b.field("Session ID", m.SessionID)
	b.field("Position", m.Position)
	b.field("Status", m.Status)
	b.field("Origin", m.Origin)
	if m.Goal != nil {
		b.field("Goal", oneLine(*m.Goal))
	}
}

func queueCreate(ctx context.Context, c *call, s *session.Session) (string, error) {
	text, err := content(c)
	if err != nil {
		return "", err
	}
	m, err := c.h.ops.CreateMessage(ctx, s.ID, orchestrator.MessageParams{
		Content: text, Goal: c.args.str("goal"), ActingSessionID: c.args.text("acting_session_id"), Source: orchestrator.SourceMCPEnqueue,
	})
	if err != nil {
		return "", err
	}
	_, pending, err := c.h.ops.PendingMessages(ctx, s.ID, 1)
	if err != nil {
		return "", err
	}
	var b doc
	writeMessage(&b, "Message Queued", m)
	b.field("Queue", fmt.Sprintf("%d message(s) now pending for session #%d, this one included", pending, s.ID))
	b.blank()
	b.line("It is delivered when the session's current turn ends, after the messages ahead of it.")
	return b.String(), nil
}

func queueUpdate(ctx context.Context, c *call, s *session.Session) (string, error) {
	id, err := messageID(c)
	if err != nil {
		return "", err
	}
	p := orchestrator.MessageUpdateParams{}
	if c.args.has("content") {
		p.Content = orchestrator.Opt[string]{Set: true, Value: c.args.str("content")}
	}
	if c.args.has("goal") {
		p.Goal = orchestrator.Opt[string]{Set: true, Value: c.args.str("goal")}
	}
	if !p.Content.Set && !p.Goal.Set {
		return "", fail("Pass content and/or goal for the \"update\" action.")
	}
	m, err := c.h.ops.UpdateMessage(ctx, s.ID, id, p)
	if err != nil {
		return "", err
	}
	var b doc
	writeMessage(&b, "Message Updated", m)
	return b.String(), nil
}

func queueDelete(ctx context.Context, c *call, s *session.Session) (string, error) {
	id, err := messageID(c)
	if err != nil {
		return "", err
	}
	if err := c.h.ops.DeleteMessage(ctx, s.ID, id); err != nil {
		return "", err
	}
	return fmt.Sprintf("## Message Deleted\n\nMessage %d was removed from session #%d's queue; the messages behind it moved up.", id, s.ID), nil
}

func queueReorder(ctx context.Context, c *call, s *session.Session) (string, error) {
	id, err := messageID(c)
	if err != nil {
		return "", err
	}
	position, ok := c.args.integer("position")
	if !ok {
		return "", fail("Invalid position: Position must be >= 1")
	}
	m, err := c.h.ops.ReorderMessage(ctx, s.ID, id, position)
	if err != nil {
		return "", err
	}
	var b doc
	writeMessage(&b, "Message Reordered", m)
	return b.String(), nil
}

func queueInterrupt(ctx context.Context, c *call, s *session.Session) (string, error) {
	id, err := messageID(c)
	if err != nil {
		return "", err
	}
	sess, err := c.h.ops.InterruptFrom(ctx, s.ID, id, c.args.text("acting_session_id"), orchestrator.SourceMCPInterrupt)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Message Delivered as an Interrupt", sess)
	b.field("Message ID", id)
	b.field("New Status", sess.Status)
	b.blank()
	b.line("It jumped to the front of the queue and is the session's next prompt; a running turn was asked to end. The messages still pending keep their order behind it.")
	return b.String(), nil
}

func queueSendNow(ctx context.Context, c *call, s *session.Session) (string, error) {
	text, err := content(c)
	if err != nil {
		return "", err
	}
	res, err := c.h.ops.FollowUp(ctx, s.ID, orchestrator.FollowUpParams{
		Prompt: text, Goal: c.args.str("goal"), ForceImmediate: true,
		ActingSessionID: c.args.text("acting_session_id"), Source: orchestrator.SourceMCPSendNow,
	})
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Message Sent Immediately", res.Session)
	b.field("New Status", res.Session.Status)
	if err := queueDepth(ctx, c, &b, res); err != nil {
		return "", err
	}
	return b.String(), nil
}
