package orchestrator

import (
	"cmp"
	"context"

	"github.com/zimmerhq/zimmer/session"
)

// Sources the MCP surface stamps on the uncle edges its deliveries record.
const (
	SourceMCPFollowUp  = "mcp:action_session.follow_up"
	SourceMCPEnqueue   = "mcp:manage_enqueued_messages.create"
	SourceMCPSendNow   = "mcp:manage_enqueued_messages.send_now"
	SourceMCPInterrupt = "mcp:manage_enqueued_messages.interrupt"
)

// InterruptFrom is Interrupt recording source on the uncle edge (SourceInterrupt when empty),
// for surfaces other than REST.
func (s *Service) InterruptFrom(ctx context.Context, id, messageID int64, acting, source string) (*session.Session, error) {
	sess, h, err := s.interrupt(ctx, id, target{messageID: messageID, refusal: "Cannot interrupt"})
	if err != nil {
		return nil, err
	}
	ctx, cancel := afterCommit(ctx)
	defer cancel()
	_ = s.dispatch(ctx, sess.ID, h) // delivered either way: the sweep queues a job that is not queued now
	s.RecordUncle(ctx, sess.ID, acting, cmp.Or(source, SourceInterrupt))
	return sess, nil
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

// maxTimeline bounds one timeline read.
const maxTimeline = 10_000

// Timeline is a session's log, oldest first (at most maxTimeline entries).
func (s *Service) Timeline(ctx context.Context, sessionID int64) ([]session.LogEntry, error) {
	return s.store.Logs(ctx, sessionID, "", 0, maxTimeline)
}
