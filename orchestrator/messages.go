package orchestrator

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// ErrMessageNotFound is an unknown message id under the session named; it is also ErrNotFound.
var ErrMessageNotFound = graph.ErrMessageNotFound

// Sources recorded on the uncle edge a self-declared acting_session_id leaves.
const (
	SourceFollowUp  = "api_v1:sessions.follow_up"
	SourceEnqueue   = "api_v1:enqueued_messages.create"
	SourceInterrupt = "api_v1:enqueued_messages.interrupt"
)

// Sources the MCP surface stamps on the uncle edges its deliveries record.
const (
	SourceMCPFollowUp  = "mcp:action_session.follow_up"
	SourceMCPEnqueue   = "mcp:manage_enqueued_messages.create"
	SourceMCPSendNow   = "mcp:manage_enqueued_messages.send_now"
	SourceMCPInterrupt = "mcp:manage_enqueued_messages.interrupt"
)

// MessageParams are the arguments of a queue append.
type MessageParams struct {
	Content string
	Goal    *string // the message's own goal: applied to the session when the message is delivered
	// ActingSessionID is the caller's self-declared session (raw text); a valid one records an
	// uncle edge, anything else records nothing.
	ActingSessionID string
	Source          string // uncle-edge source; SourceEnqueue when empty
	// captured runs once the message is stored and before a drain is scheduled; set only by
	// this package's capture boundaries (capture.go).
	captured delivered
}

// CreateMessage appends a message to the session's queue. An idle session has no turn ending
// to drain it, so a drain is scheduled for it; should that fail, the sweep drains it (rule 5).
func (s *Service) CreateMessage(ctx context.Context, id int64, p MessageParams) (*session.Message, error) {
	content, err := requiredText("Content", p.Content, session.MaxPrompt)
	if err != nil {
		return nil, err
	}
	goal, err := optionalGoal(p.Goal)
	if err != nil {
		return nil, err
	}
	if err := s.vouch(ctx, "acting_session_id", p.ActingSessionID); err != nil {
		return nil, err
	}
	m, sess, err := s.store.CreateMessage(ctx, id, session.NewMessage{Content: content, Goal: goal, Origin: session.OriginCaller})
	if err != nil {
		return nil, err
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	if p.captured != nil {
		p.captured(ctx, sess.ID, true)
	}
	if drainable(sess) {
		if err := s.queue.EnqueueDrainMessages(ctx, sess.ID); err != nil {
			s.log.Warn("message queued but its drain was not scheduled; the sweep drains it", "session_id", sess.ID, "message_id", m.ID, "err", err)
		}
	}
	s.RecordUncle(ctx, sess.ID, p.ActingSessionID, cmp.Or(p.Source, SourceEnqueue))
	return m, nil
}

// MessageListParams filter and page a queue listing; an unknown status lists every status.
type MessageListParams struct {
	Status        string
	Page, PerPage int
}

// ListMessages returns one page of the session's queue in position order.
func (s *Service) ListMessages(ctx context.Context, id int64, p MessageListParams) ([]*session.Message, Page, error) {
	page, perPage := max(p.Page, 1), p.PerPage
	if perPage < 1 || perPage > MaxPerPage {
		perPage = DefaultPerPage
	}
	status := ""
	switch p.Status {
	case session.MessagePending, session.MessageProcessing, session.MessageUndelivered:
		status = p.Status
	}
	list, total, err := s.store.ListMessages(ctx, id, status, (page-1)*perPage, perPage)
	if err != nil {
		return nil, Page{}, err
	}
	return list, newPage(page, perPage, total), nil
}

// PendingMessages is one page of the messages still waiting for a session (position order)
// and how many there are in all: what a caller must see before it adds to a queue.
func (s *Service) PendingMessages(ctx context.Context, id int64, limit int) ([]*session.Message, int, error) {
	list, page, err := s.ListMessages(ctx, id, MessageListParams{Status: session.MessagePending, PerPage: max(limit, 1)})
	if err != nil {
		return nil, 0, err
	}
	return list, page.TotalCount, nil
}

// GetMessage reads one message of the session.
func (s *Service) GetMessage(ctx context.Context, sessionID, id int64) (*session.Message, error) {
	return s.store.GetMessage(ctx, sessionID, id)
}

// MessageUpdateParams are the fields a message update may change: content must stay non-blank;
// a blank or null goal clears the message's goal.
type MessageUpdateParams struct {
	Content, Goal Opt[string]
}

// UpdateMessage edits a message that is not being delivered.
func (s *Service) UpdateMessage(ctx context.Context, sessionID, id int64, p MessageUpdateParams) (*session.Message, error) {
	var content, goal *string
	if p.Content.Set {
		c, err := requiredText("Content", deref(p.Content.Value, ""), session.MaxPrompt)
		if err != nil {
			return nil, err
		}
		content = &c
	}
	if p.Goal.Set {
		g, err := optionalGoal(p.Goal.Value)
		if err != nil {
			return nil, err
		}
		goal = g
	}
	return s.store.UpdateMessage(ctx, sessionID, id, func(m *session.Message) error {
		if err := editable(m); err != nil {
			return err
		}
		if content != nil {
			m.Content = *content
		}
		if p.Goal.Set {
			m.Goal = goal
		}
		return nil
	})
}

// DeleteMessage removes a message that is not being delivered; later messages move up.
func (s *Service) DeleteMessage(ctx context.Context, sessionID, id int64) error {
	_, err := s.store.WithQueue(ctx, sessionID, func(_ *session.Session, q *graph.MessageQueue) error {
		m, err := q.Get(id)
		if err != nil {
			return err
		}
		if err := editable(m); err != nil {
			return err
		}
		return q.Delete(id)
	})
	return err
}

// ReorderMessage moves a message to position (≥ 1; past the end means last), shifting the
// others while keeping their order.
func (s *Service) ReorderMessage(ctx context.Context, sessionID, id, position int64) (*session.Message, error) {
	if position < 1 {
		return nil, invalid("Invalid position", fmt.Sprintf("Position must be 1 or greater (got %d)", position))
	}
	var out *session.Message
	_, err := s.store.WithQueue(ctx, sessionID, func(_ *session.Session, q *graph.MessageQueue) error {
		m, err := q.Get(id)
		if err != nil {
			return err
		}
		if err := editable(m); err != nil {
			return err
		}
		out, err = q.Move(id, position)
		return err
	})
	return out, err
}

// editable refuses changes to a message already handed to an agent job: it can no longer be
// got ahead of, and changing it would race the hand-off.
func editable(m *session.Message) error {
	if m.Status == session.MessageProcessing {
		return fmt.Errorf("message %d is being delivered and can no longer change: %w", m.ID, ErrConflict)
	}
	return nil
}

// requiredText strips v and requires it to be non-blank and at most max characters.
func requiredText(field, v string, max int) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", invalid("Validation failed", field+" can't be blank")
	}
	if len([]rune(v)) > max {
		return "", invalid("Validation failed", fmt.Sprintf("%s is too long (maximum is %d characters)", field, max))
	}
	return v, nil
}

// optionalGoal strips a goal: blank or absent is nil (no goal), anything else at most
// session.MaxGoal characters.
func optionalGoal(v *string) (*string, error) {
	if v == nil || strings.TrimSpace(*v) == "" {
		return nil, nil
	}
	g, err := requiredText("Goal", *v, session.MaxGoal)
	return &g, err
}

// queuedRefusal is the archive guard's answer: it tells the (usually agent) caller what to do
// instead, names what would be lost and how to override.
func queuedRefusal(sessionID int64, pending []*session.Message) error {
	names := make([]string, 0, len(pending))
	for _, m := range pending {
		names = append(names, fmt.Sprintf("#%d %q", m.ID, preview(m.Content, 80)))
	}
	return invalid("Queued messages would be discarded", fmt.Sprintf(
		"do not archive; end your turn instead. Session #%d has %d queued message(s) waiting to be delivered when its turn ends, "+
			"which archiving would discard undelivered: %s. If they really should be dropped, archive again with force: true",
		sessionID, len(pending), strings.Join(names, "; ")))
}

// preview is the first n characters of s on one line, marked when cut.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
