package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/session"
)

// Why a child reports to its parent. A closed list, because a parent branches on it.
const (
	ReasonWrongScope   = "wrong_scope"
	ReasonMissingTools = "missing_tools"
	ReasonOther        = "other"
)

// ParentReasons lists the reasons in the order tools advertise them.
var ParentReasons = []string{ReasonWrongScope, ReasonMissingTools, ReasonOther}

var reasonGloss = map[string]string{
	ReasonWrongScope:   "the work belongs to a different agent root",
	ReasonMissingTools: "an MCP server, credential or privilege the session was not given",
	ReasonOther:        "see the message",
}

// SourceMessageParent is the source recorded for a report to a parent.
const SourceMessageParent = "mcp:action_session.message_parent"

// MessageParentParams are a child's report to whoever spawned it.
type MessageParentParams struct {
	Child   int64 // the reporting session
	Message string
	Reason  string
	// ForceImmediate interrupts a running parent; by default the report queues, since the
	// parent of a stuck child is usually a router mid-delegation and the news keeps a few minutes.
	ForceImmediate bool
	// UnarchiveParent restores an archived parent and then delivers; opt-in because it
	// interrupts a session that considered its work finished.
	UnarchiveParent bool
	// SessionURL links a session for the framing; nil leaves the link out.
	SessionURL func(id int64) string
}

// MessageParentResult is a delivered report.
type MessageParentResult struct {
	Child, Parent *session.Session
	Delivery      FollowUpResult
	Unarchived    bool
}

// MessageParent delivers a child's report to its spawn parent through the ordinary follow-up
// routing: queued on a running parent, delivered now to a waiting or needs_input one. The
// caller names no target: Zimmer reads the spawn edge, which is what makes "report to whoever
// started me" safe on a surface every session carries. The child's words are quoted line by
// line inside Zimmer's framing, so a report can never pass for a human or for Zimmer.
func (s *Service) MessageParent(ctx context.Context, p MessageParentParams) (MessageParentResult, error) {
	if !slices.Contains(ParentReasons, p.Reason) {
		return MessageParentResult{}, invalid("Validation failed", fmt.Sprintf("reason must be one of %s (got %q)", strings.Join(ParentReasons, ", "), p.Reason))
	}
	message, err := requiredText("Message", p.Message, session.MaxPrompt)
	if err != nil {
		return MessageParentResult{}, err
	}
	child, err := s.store.GetSession(ctx, p.Child)
	if err != nil {
		return MessageParentResult{}, err
	}
	parent, err := s.reportTarget(ctx, child)
	if err != nil {
		return MessageParentResult{}, err
	}
	out := MessageParentResult{Child: child, Parent: parent}
	if parent.Status == session.StatusArchived {
		if !p.UnarchiveParent {
			return MessageParentResult{}, invalid("Parent is archived", fmt.Sprintf(
				"Session #%d's parent, #%d, is archived, and nothing delivers a message to a session in the trash. "+
					"Send it again with unarchive_parent: true to restore #%d and then deliver — which interrupts a session that considered its work finished — or report another way.",
				child.ID, parent.ID, parent.ID))
		}
		if parent, err = s.Unarchive(ctx, parent.ID); err != nil {
			return MessageParentResult{}, fmt.Errorf("unarchive parent #%d: %w", out.Parent.ID, err)
		}
		out.Parent, out.Unarchived = parent, true
	}
	out.Delivery, err = s.FollowUp(ctx, parent.ID, FollowUpParams{
		Prompt: frameReport(child, message, p.Reason, p.SessionURL), ForceImmediate: p.ForceImmediate, Source: SourceMessageParent,
	})
	if errors.Is(err, ErrConflict) {
		return MessageParentResult{}, fmt.Errorf("another writer of #%d's queue won a race for the same position; send it again: %w", parent.ID, err)
	}
	if err != nil {
		return MessageParentResult{}, err
	}
	out.Parent = out.Delivery.Session
	return out, nil
}

// reportTarget is the child's spawn parent, refusing the cases that have nobody to report to.
func (s *Service) reportTarget(ctx context.Context, child *session.Session) (*session.Session, error) {
	parentID, ok := child.LineageParentID()
	if !ok {
		return nil, invalid("No parent", fmt.Sprintf(
			"Session #%d was not spawned by another session (it has no parent_session_id), so there is nobody to report to. "+
				"Say it in your final message, or leave a note with update_notes for whoever reads this session.", child.ID))
	}
	if parentID == child.ID {
		return nil, invalid("No parent", fmt.Sprintf(
			"Session #%d is recorded as its own parent (parent_session_id is client-supplied), so a report would come back to itself. "+
				"Say it in your final message instead.", child.ID))
	}
	parent, err := s.store.GetSession(ctx, parentID)
	if errors.Is(err, ErrNotFound) {
		return nil, invalid("No parent", fmt.Sprintf("Session #%d's parent, #%d, no longer exists. Say it in your final message instead.", child.ID, parentID))
	}
	if err != nil {
		return nil, err
	}
	if parent.Status == session.StatusFailed {
		return nil, invalid("Parent has failed", fmt.Sprintf(
			"Session #%d's parent, #%d, has failed and takes no messages until it is restarted. Say it in your final message, "+
				"or leave a note with update_notes; a human reviewing #%d will see both.", child.ID, parentID, parentID))
	}
	return parent, nil
}

// frameReport wraps the child's words: every line behind "> ", so a body carrying its own
// "---" or bracketed header cannot close the quotation and continue in Zimmer's voice.
func frameReport(child *session.Session, message, reason string, url func(int64) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Zimmer: a report from your child session #%d — %s]\n", child.ID, oneLineTitle(child.DisplayTitle()))
	fmt.Fprintf(&b, "Reason: %s (%s)\n", reason, reasonGloss[reason])
	if url != nil {
		fmt.Fprintf(&b, "Session: %s\n", url(child.ID))
	}
	b.WriteString("The quoted lines below are that session's own words, relayed by Zimmer through message_parent. They are not from a human.\n\n")
	for _, line := range strings.Split(message, "\n") {
		b.WriteString(strings.TrimRight("> "+strings.TrimRight(line, "\r"), " ") + "\n")
	}
	fmt.Fprintf(&b, "\n[End of the report from session #%d. Answer it with action_session follow_up on session #%d if it needs one.]", child.ID, child.ID)
	return b.String()
}

// oneLineTitle keeps a title to one line inside the framing.
func oneLineTitle(title string) string { return strings.Join(strings.Fields(title), " ") }
