package graph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/session"
)

// maxMessagesPerListing stands for "every message" in the internal pending list.
const maxMessagesPerListing = 1 << 20

// ErrMessageNotFound is a message id unknown under the session named; it is also ErrNotFound.
var ErrMessageNotFound = fmt.Errorf("enqueued message %w", ErrNotFound)

// MessageQueue is one session's queue inside a transaction that holds the session's write lock,
// so every change to positions is serialised with every other change to the same queue.
type MessageQueue struct {
	tx        txn
	sessionID int64
	at        time.Time
}

// SessionID is the id of the session whose queue this is.
func (q *MessageQueue) SessionID() int64 { return q.sessionID }

// Append stores m at the end of the queue (largest position + 1) as pending.
func (q *MessageQueue) Append(m session.NewMessage) (*session.Message, error) {
	rec, err := q.tx.single("next_message_id", queries.NextMessageID, nil)
	if err != nil {
		return nil, fmt.Errorf("enqueued_message counter missing (run `zimmer migrate`): %w", err)
	}
	id, _, err := neo4j.GetRecordValue[int64](rec, "id")
	if err != nil {
		return nil, fmt.Errorf("read enqueued_message counter: %w", err)
	}
	if m.Origin == "" {
		m.Origin = session.OriginCaller
	}
	rec, err = q.tx.single("insert_message", queries.InsertMessage, map[string]any{
		"session_id": q.sessionID, "id": id, "content": m.Content, "goal": optValue(m.Goal),
		"status": session.MessagePending, "origin": m.Origin, "at": q.at,
	})
	if err != nil {
		return nil, fmt.Errorf("append message to session %d: %w", q.sessionID, err)
	}
	return recordMessage(rec)
}

// Get reads one message of this session.
func (q *MessageQueue) Get(id int64) (*session.Message, error) {
	return q.one("get_message", queries.GetMessage, id, nil)
}

// List returns one page of the queue in position order and the filter's total; status ""
// lists every status.
func (q *MessageQueue) List(status string, skip, limit int) ([]*session.Message, int, error) {
	rec, err := q.tx.single("list_messages", queries.ListMessages, map[string]any{
		"session_id": q.sessionID, "status": status, "skip": skip, "limit": limit,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list messages of session %d: %w", q.sessionID, err)
	}
	total, _, err := neo4j.GetRecordValue[int64](rec, "total")
	if err != nil {
		return nil, 0, fmt.Errorf("list messages of session %d: %w", q.sessionID, err)
	}
	nodes, _, err := neo4j.GetRecordValue[[]any](rec, "messages")
	if err != nil {
		return nil, 0, fmt.Errorf("list messages of session %d: %w", q.sessionID, err)
	}
	out := make([]*session.Message, 0, len(nodes))
	for _, n := range nodes {
		node, ok := n.(neo4j.Node)
		if !ok {
			return nil, 0, errors.New("list_messages: row is not a node")
		}
		out = append(out, nodeMessage(node.Props))
	}
	return out, int(total), nil
}

// Pending lists every pending message in position order.
func (q *MessageQueue) Pending() ([]*session.Message, error) {
	list, _, err := q.List(session.MessagePending, 0, maxMessagesPerListing)
	return list, err
}

// Edit replaces a message's content and goal (nil removes the goal).
func (q *MessageQueue) Edit(id int64, content string, goal *string) (*session.Message, error) {
	return q.one("update_message", queries.UpdateMessage, id, map[string]any{"content": content, "goal": optValue(goal)})
}

// Delete removes a message and shifts every later one down a place.
func (q *MessageQueue) Delete(id int64) error {
	_, err := q.one("delete_message", queries.DeleteMessage, id, nil)
	return err
}

// Move puts a message at position (clamped to the queue's length; it must be ≥ 1) and shifts
// the messages in between by one, keeping their order.
func (q *MessageQueue) Move(id, position int64) (*session.Message, error) {
	if position < 1 {
		return nil, fmt.Errorf("position %d of message %d: %w", position, id, ErrInvalid)
	}
	return q.one("move_message", queries.MoveMessage, id, map[string]any{"position": position})
}

// ClaimNext marks the lowest-position pending message processing and returns it; with nothing
// pending it returns ErrMessageNotFound. The session's lock makes each claim exactly-once.
func (q *MessageQueue) ClaimNext() (*session.Message, error) {
	rec, err := q.tx.single("claim_next_message", queries.ClaimNextMessage, map[string]any{"session_id": q.sessionID, "at": q.at})
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("claim next message of session %d: nothing pending: %w", q.sessionID, ErrMessageNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("claim next message of session %d: %w", q.sessionID, err)
	}
	return recordMessage(rec)
}

// SetStatus moves a message to status (used to release a claim whose hand-off failed).
func (q *MessageQueue) SetStatus(id int64, status string) (*session.Message, error) {
	return q.one("set_message_status", queries.SetMessageStatus, id, map[string]any{"status": status})
}

// RetirePending marks every pending message undelivered and returns how many it marked.
func (q *MessageQueue) RetirePending() (int, error) {
	rec, err := q.tx.single("retire_pending_messages", queries.RetirePendingMessages, map[string]any{"session_id": q.sessionID, "at": q.at})
	if err != nil {
		return 0, fmt.Errorf("retire pending messages of session %d: %w", q.sessionID, err)
	}
	n, _, err := neo4j.GetRecordValue[int64](rec, "retired")
	return int(n), err
}

// one runs a statement on one message of this session; a missing message is ErrMessageNotFound.
func (q *MessageQueue) one(name, cypher string, id int64, extra map[string]any) (*session.Message, error) {
	params := map[string]any{"session_id": q.sessionID, "id": id, "at": q.at}
	for k, v := range extra {
		params[k] = v
	}
	rec, err := q.tx.single(name, cypher, params)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("message %d of session %d: %w", id, q.sessionID, ErrMessageNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %d of session %d: %w", name, id, q.sessionID, err)
	}
	if _, ok := rec.Get("m"); !ok {
		return nil, nil // statements that delete return no node
	}
	return recordMessage(rec)
}

// WithQueue locks the session and runs fn on its queue, in one write
// transaction; the session itself is not written. fn may run more than once (the driver
// retries), so it must have no effect outside the database.
func (s *Store) WithQueue(ctx context.Context, sessionID int64, fn func(*session.Session, *MessageQueue) error) (*session.Session, error) {
	out, err := write(ctx, s, "with_queue", func(tx txn) (*session.Session, error) {
		locked, err := lockSession(tx, sessionID)
		if err != nil {
			return nil, err
		}
		return locked, fn(locked, s.queueOf(tx, locked.ID))
	})
	if err != nil {
		return nil, fmt.Errorf("queue of session %d: %w", sessionID, err)
	}
	return out, nil
}

func (s *Store) queueOf(tx txn, sessionID int64) *MessageQueue {
	return &MessageQueue{tx: tx, sessionID: sessionID, at: s.now().UTC()}
}

// CreateMessage appends a pending message to the session's queue and returns it with the
// session as it was when the message landed.
func (s *Store) CreateMessage(ctx context.Context, sessionID int64, m session.NewMessage) (*session.Message, *session.Session, error) {
	var out *session.Message
	sess, err := s.WithQueue(ctx, sessionID, func(_ *session.Session, q *MessageQueue) (err error) {
		out, err = q.Append(m)
		return err
	})
	return out, sess, err
}

// ListMessages returns one page of a session's queue in position order and the filter's total.
func (s *Store) ListMessages(ctx context.Context, sessionID int64, status string, skip, limit int) ([]*session.Message, int, error) {
	type page struct {
		list  []*session.Message
		total int
	}
	out, err := read(ctx, s, "list_messages", func(tx txn) (page, error) {
		if err := requireSession(tx, sessionID); err != nil {
			return page{}, err
		}
		list, total, err := s.queueOf(tx, sessionID).List(status, skip, limit)
		return page{list, total}, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("messages of session %d: %w", sessionID, err)
	}
	return out.list, out.total, nil
}

// GetMessage reads one message of a session.
func (s *Store) GetMessage(ctx context.Context, sessionID, id int64) (*session.Message, error) {
	out, err := read(ctx, s, "get_message", func(tx txn) (*session.Message, error) {
		if err := requireSession(tx, sessionID); err != nil {
			return nil, err
		}
		return s.queueOf(tx, sessionID).Get(id)
	})
	if err != nil {
		return nil, fmt.Errorf("message of session %d: %w", sessionID, err)
	}
	return out, nil
}

// UpdateMessage applies mutate to a copy of the message under the session's lock and stores
// its content and goal. mutate may run more than once and must be pure.
func (s *Store) UpdateMessage(ctx context.Context, sessionID, id int64, mutate func(*session.Message) error) (*session.Message, error) {
	var out *session.Message
	_, err := s.WithQueue(ctx, sessionID, func(_ *session.Session, q *MessageQueue) error {
		m, err := q.Get(id)
		if err != nil {
			return err
		}
		if err := mutate(m); err != nil {
			return err
		}
		out, err = q.Edit(id, m.Content, m.Goal)
		return err
	})
	return out, err
}

// DeleteMessage removes a message and renumbers the tail of the queue down.
func (s *Store) DeleteMessage(ctx context.Context, sessionID, id int64) error {
	_, err := s.WithQueue(ctx, sessionID, func(_ *session.Session, q *MessageQueue) error { return q.Delete(id) })
	return err
}

// ReorderMessage moves a message to position (≥ 1; past the end means last).
func (s *Store) ReorderMessage(ctx context.Context, sessionID, id, position int64) (*session.Message, error) {
	var out *session.Message
	_, err := s.WithQueue(ctx, sessionID, func(_ *session.Session, q *MessageQueue) (err error) {
		out, err = q.Move(id, position)
		return err
	})
	return out, err
}

// ClaimNextMessage marks the session's first pending message processing and returns it
// (ErrMessageNotFound when nothing is pending).
func (s *Store) ClaimNextMessage(ctx context.Context, sessionID int64) (*session.Message, error) {
	var out *session.Message
	_, err := s.WithQueue(ctx, sessionID, func(_ *session.Session, q *MessageQueue) (err error) {
		out, err = q.ClaimNext()
		return err
	})
	return out, err
}

// RetirePendingMessages marks every pending message of the session undelivered.
func (s *Store) RetirePendingMessages(ctx context.Context, sessionID int64) (int, error) {
	var n int
	_, err := s.WithQueue(ctx, sessionID, func(_ *session.Session, q *MessageQueue) (err error) {
		n, err = q.RetirePending()
		return err
	})
	return n, err
}

// CountPendingMessages is how many messages still wait to be delivered to the session.
func (s *Store) CountPendingMessages(ctx context.Context, sessionID int64) (int, error) {
	_, total, err := s.ListMessages(ctx, sessionID, session.MessagePending, 0, 0)
	return total, err
}

func recordMessage(rec *neo4j.Record) (*session.Message, error) {
	node, _, err := neo4j.GetRecordValue[neo4j.Node](rec, "m")
	if err != nil {
		return nil, fmt.Errorf("read message node: %w", err)
	}
	return nodeMessage(node.Props), nil
}

func nodeMessage(p map[string]any) *session.Message {
	return &session.Message{
		ID: asInt(p["id"]), SessionID: asInt(p["session_id"]), Content: asString(p["content"]),
		Goal: optString(p["goal"]), Position: asInt(p["position"]), Status: asString(p["status"]),
		Origin: asString(p["origin"]), CreatedAt: asTime(p["created_at"]), UpdatedAt: asTime(p["updated_at"]),
	}
}

// optValue turns an optional value into a Cypher parameter (nil stores no property).
func optValue[T any](v *T) any {
	if v == nil {
		return nil
	}
	return *v
}
