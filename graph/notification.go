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

// ErrNotificationNotFound is an unknown notification id; it is also ErrNotFound.
var ErrNotificationNotFound = fmt.Errorf("notification %w", ErrNotFound)

// NewNotification is what CreateNotification records. Key makes the write idempotent: the
// same key always names the same notification. At is its creation time (the store's clock when
// zero).
type NewNotification struct {
	SessionID     int64
	Key           string
	Type, Message string
	At            time.Time
}

// CreateNotification records n unless a notification with its key exists; created says which.
// A missing session is ErrNotFound.
func (s *Store) CreateNotification(ctx context.Context, n NewNotification) (*session.Notification, bool, error) {
	type result struct {
		n       *session.Notification
		created bool
	}
	if n.At.IsZero() {
		n.At = s.now()
	}
	out, err := write(ctx, s, "create_notification", func(tx txn) (result, error) {
		rec, err := tx.single("create_notification", queries.CreateNotification, map[string]any{
			"session_id": n.SessionID, "key": n.Key, "type": n.Type, "message": n.Message, "at": n.At.UTC(),
		})
		if err != nil {
			return result{}, err
		}
		got, err := tx.notification(rec)
		if err != nil {
			return result{}, err
		}
		created, _ := rec.Get("created")
		return result{got, asBool(created)}, nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("create %s notification of session %d: %w", n.Type, n.SessionID, err)
	}
	return out.n, out.created, nil
}

// GetNotification reads one notification, stale or not.
func (s *Store) GetNotification(ctx context.Context, id int64) (*session.Notification, error) {
	return s.oneNotification(ctx, "get_notification", queries.GetNotification, id, read[*session.Notification])
}

// MarkNotificationRead marks one notification read and returns it.
func (s *Store) MarkNotificationRead(ctx context.Context, id int64) (*session.Notification, error) {
	return s.oneNotification(ctx, "mark_notification_read", queries.MarkNotificationRead, id, write[*session.Notification])
}

func (s *Store) oneNotification(ctx context.Context, name, cypher string, id int64,
	run func(context.Context, *Store, string, func(txn) (*session.Notification, error)) (*session.Notification, error)) (*session.Notification, error) {
	out, err := run(ctx, s, name, func(tx txn) (*session.Notification, error) {
		rec, err := tx.single(name, cypher, map[string]any{"id": id, "at": s.now().UTC()})
		if errors.Is(err, ErrNotFound) {
			return nil, ErrNotificationNotFound
		}
		if err != nil {
			return nil, err
		}
		return tx.notification(rec)
	})
	if err != nil {
		return nil, fmt.Errorf("%s %d: %w", name, id, err)
	}
	return out, nil
}

// NotificationFilter pages the active notifications; Read nil lists read and unread.
type NotificationFilter struct {
	Read          *bool
	Page, PerPage int
}

// ListNotifications returns one page of the active notifications, newest first, and the
// filter's total.
func (s *Store) ListNotifications(ctx context.Context, f NotificationFilter) ([]*session.Notification, int, error) {
	type page struct {
		list  []*session.Notification
		total int
	}
	var readParam any
	if f.Read != nil {
		readParam = *f.Read
	}
	out, err := read(ctx, s, "list_notifications", func(tx txn) (page, error) {
		rec, err := tx.single("list_notifications", queries.ListNotifications, map[string]any{
			"read": readParam, "skip": (f.Page - 1) * f.PerPage, "limit": f.PerPage,
		})
		if err != nil {
			return page{}, err
		}
		total, _, err := neo4j.GetRecordValue[int64](rec, "total")
		if err != nil {
			return page{}, err
		}
		rows, _, err := neo4j.GetRecordValue[[]any](rec, "rows")
		if err != nil {
			return page{}, err
		}
		p := page{total: int(total), list: make([]*session.Notification, 0, len(rows))}
		for _, row := range rows {
			m, _ := row.(map[string]any)
			n, err := tx.notificationOf(m["n"], m["s"])
			if err != nil {
				return page{}, err
			}
			p.list = append(p.list, n)
		}
		return p, nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list notifications: %w", err)
	}
	return out.list, out.total, nil
}

// NotificationBadge counts the pending (active, unread) notifications.
func (s *Store) NotificationBadge(ctx context.Context) (int, error) {
	return s.count(ctx, "notification_badge", queries.NotificationBadge, nil, read[int])
}

// MarkAllNotificationsRead marks every pending notification read; it reports how many.
func (s *Store) MarkAllNotificationsRead(ctx context.Context) (int, error) {
	return s.count(ctx, "mark_all_notifications_read", queries.MarkAllNotificationsRead, map[string]any{"at": s.now().UTC()}, write[int])
}

// DismissReadNotifications deletes every active read notification; it reports how many.
func (s *Store) DismissReadNotifications(ctx context.Context) (int, error) {
	return s.count(ctx, "dismiss_read_notifications", queries.DismissReadNotifications, nil, write[int])
}

// MarkSessionNotificationsStale marks the session's notifications created at or before
// `before` stale; it reports how many changed.
func (s *Store) MarkSessionNotificationsStale(ctx context.Context, sessionID int64, before time.Time) (int, error) {
	return s.count(ctx, "mark_session_notifications_stale", queries.MarkSessionNotificationsStale,
		map[string]any{"session_id": sessionID, "before": before.UTC(), "at": s.now().UTC()}, write[int])
}

// DeleteSessionNotifications deletes the session's notifications created at or before
// `before`; it reports how many.
func (s *Store) DeleteSessionNotifications(ctx context.Context, sessionID int64, before time.Time) (int, error) {
	return s.count(ctx, "delete_session_notifications", queries.DeleteSessionNotifications,
		map[string]any{"session_id": sessionID, "before": before.UTC()}, write[int])
}

// count runs a statement whose one row's one column is a count.
func (s *Store) count(ctx context.Context, name, cypher string, params map[string]any,
	run func(context.Context, *Store, string, func(txn) (int, error)) (int, error)) (int, error) {
	n, err := run(ctx, s, name, func(tx txn) (int, error) {
		rec, err := tx.single(name, cypher, params)
		if err != nil {
			return 0, err
		}
		return int(asInt(rec.Values[0])), nil
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}

// DismissNotification deletes a read notification; dismissed is false (and nothing changes)
// when it is unread.
func (s *Store) DismissNotification(ctx context.Context, id int64) (bool, error) {
	dismissed, err := write(ctx, s, "dismiss_notification", func(tx txn) (bool, error) {
		rec, err := tx.single("get_notification", queries.GetNotification, map[string]any{"id": id})
		if errors.Is(err, ErrNotFound) {
			return false, ErrNotificationNotFound
		}
		if err != nil {
			return false, err
		}
		n, err := tx.notification(rec)
		if err != nil || !n.Read {
			return false, err
		}
		_, err = tx.collect("delete_notification", queries.DeleteNotification, map[string]any{"id": id})
		return err == nil, err
	})
	if err != nil {
		return false, fmt.Errorf("dismiss notification %d: %w", id, err)
	}
	return dismissed, nil
}

// SetNotificationDelivery records how the notification's delivery ended; a notification
// deleted meanwhile is ErrNotificationNotFound.
func (s *Store) SetNotificationDelivery(ctx context.Context, id int64, delivery string) error {
	_, err := write(ctx, s, "set_notification_delivery", func(tx txn) (struct{}, error) {
		_, err := tx.single("set_notification_delivery", queries.SetNotificationDelivery,
			map[string]any{"id": id, "delivery": delivery, "at": s.now().UTC()})
		if errors.Is(err, ErrNotFound) {
			return struct{}{}, ErrNotificationNotFound
		}
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("record delivery of notification %d: %w", id, err)
	}
	return nil
}

// SpotParkedSessions lists sessions parked in the spot queue and asleep with no job owning
// them, longest parked first; scope as for StaleRunningSessions.
func (s *Store) SpotParkedSessions(ctx context.Context, scope string, limit int) ([]*session.Session, error) {
	return s.sessionsBy(ctx, "spot_parked_sessions", queries.SpotParkedSessions, map[string]any{"scope": scope, "limit": limit})
}

// notification reads a notification and its session from the row's n and s.
func (tx txn) notification(rec *neo4j.Record) (*session.Notification, error) {
	n, _ := rec.Get("n")
	sess, _ := rec.Get("s")
	return tx.notificationOf(n, sess)
}

func (tx txn) notificationOf(n, s any) (*session.Notification, error) {
	node, ok := n.(neo4j.Node)
	if !ok {
		return nil, errors.New("notification row holds no notification node")
	}
	p := node.Props
	out := &session.Notification{ID: asInt(p["id"]), SessionID: asInt(p["session_id"]), Type: asString(p["notification_type"]),
		Message: asString(p["message"]), Read: asBool(p["read"]), Stale: asBool(p["stale"]), Delivery: asString(p["delivery"]),
		CreatedAt: asTime(p["created_at"]), UpdatedAt: asTime(p["updated_at"])}
	if sn, ok := s.(neo4j.Node); ok {
		about, err := tx.sessionOf(sn.Props)
		if err != nil {
			return nil, err
		}
		out.Session = about
	}
	return out, nil
}
