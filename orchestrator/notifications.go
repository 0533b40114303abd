package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// Notifications tell the humans that a session needs them: records per session (the badge
// counts the pending ones: active and unread), each delivered once to the push webhook by its
// own job. A session's notifications go stale when it resumes or is unblocked and are deleted
// when it is archived (the effects in notification_effects.go).

// ErrNotificationNotFound is an unknown notification id; it is also ErrNotFound.
var ErrNotificationNotFound = graph.ErrNotificationNotFound

// NotificationObserver counts the notifications recorded, by type; metrics implement it. The
// service asks its Observer for it, so a deployment without it counts nothing.
type NotificationObserver interface {
	ObserveNotification(notificationType string)
}

// NotificationListParams filter and page the active notifications: Status "read" or "unread"
// (anything else lists both).
type NotificationListParams struct {
	Status        string
	Page, PerPage int
}

// Notifications returns one page of the active notifications, newest first.
func (s *Service) Notifications(ctx context.Context, p NotificationListParams) ([]*session.Notification, Page, error) {
	f := graph.NotificationFilter{Page: max(p.Page, 1), PerPage: p.PerPage}
	if f.PerPage < 1 || f.PerPage > MaxPerPage {
		f.PerPage = DefaultPerPage
	}
	if p.Status == "read" || p.Status == "unread" {
		read := p.Status == "read"
		f.Read = &read
	}
	list, total, err := s.store.ListNotifications(ctx, f)
	if err != nil {
		return nil, Page{}, err
	}
	return list, newPage(f.Page, f.PerPage, total), nil
}

// Notification reads one notification, stale or not.
func (s *Service) Notification(ctx context.Context, id int64) (*session.Notification, error) {
	n, err := s.store.GetNotification(ctx, id)
	return n, notificationNotFound(err, id)
}

// NotificationBadge is the number of pending notifications.
func (s *Service) NotificationBadge(ctx context.Context) (int, error) {
	return s.store.NotificationBadge(ctx)
}

// MarkNotificationRead marks one notification read.
func (s *Service) MarkNotificationRead(ctx context.Context, id int64) (*session.Notification, error) {
	n, err := s.store.MarkNotificationRead(ctx, id)
	return n, notificationNotFound(err, id)
}

// MarkAllNotificationsRead marks every pending notification read; it reports how many, and
// how many are pending after it.
func (s *Service) MarkAllNotificationsRead(ctx context.Context) (marked, pending int, err error) {
	if marked, err = s.store.MarkAllNotificationsRead(ctx); err != nil {
		return 0, 0, err
	}
	pending, err = s.store.NotificationBadge(ctx)
	return marked, pending, err
}

// DismissNotification deletes a read notification; an unread one is refused, since dismissing
// is destructive and nobody has seen it yet.
func (s *Service) DismissNotification(ctx context.Context, id int64) error {
	dismissed, err := s.store.DismissNotification(ctx, id)
	if err != nil {
		return notificationNotFound(err, id)
	}
	if !dismissed {
		return invalid("Cannot dismiss", "Cannot dismiss unread notification")
	}
	return nil
}

// DismissReadNotifications deletes every active read notification; it reports how many, and
// how many are pending after it.
func (s *Service) DismissReadNotifications(ctx context.Context) (dismissed, pending int, err error) {
	if dismissed, err = s.store.DismissReadNotifications(ctx); err != nil {
		return 0, 0, err
	}
	pending, err = s.store.NotificationBadge(ctx)
	return dismissed, pending, err
}

// MaxPushMessage bounds a custom push message.
const MaxPushMessage = 2000

// PushMessage records a custom_message notification about a session and queues its delivery
// (REST POST /notifications/push, MCP send_push_notification). The message is required.
func (s *Service) PushMessage(ctx context.Context, sessionID int64, message string) (*session.Notification, error) {
	message, err := requiredText("Message", message, MaxPushMessage)
	if err != nil {
		return nil, err
	}
	// Each call is its own notification: the key is drawn here, once, not inside a retry.
	n, err := s.notify(ctx, sessionID, "push-"+rand.Text(), session.NotifyCustomMessage, message)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// notify records a notification once per key and queues its delivery. The delivery is queued
// again when the notification already existed (a redelivered effect whose first run could not
// queue it); the delivery job's own id, and the delivery recorded on the notification, keep
// that from posting twice.
func (s *Service) notify(ctx context.Context, sessionID int64, key, typ, message string) (*session.Notification, error) {
	n, created, err := s.store.CreateNotification(ctx, graph.NewNotification{SessionID: sessionID, Key: key, Type: typ, Message: message, At: s.now()})
	if err != nil {
		return nil, err
	}
	if created {
		if o, ok := s.obs.(NotificationObserver); ok {
			o.ObserveNotification(typ)
		}
	}
	if n.Delivery == session.DeliveryPending {
		if err := s.queue.EnqueueNotificationDelivery(ctx, n.ID); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func notificationNotFound(err error, id int64) error {
	if errors.Is(err, ErrNotificationNotFound) {
		return &NotFoundError{Message: fmt.Sprintf("Notification not found: %d", id), Kind: ErrNotificationNotFound}
	}
	return err
}

// Push is a notification as the humans' devices receive it.
type Push struct {
	Notification *session.Notification
	Title, Body  string
}

// PushFor is the notification the delivery job is to post, with its title and body; ok is
// false when there is nothing to post any more: it is gone (dismissed, its session archived or
// deleted; Notification is nil then), stale (the session was actioned first), or its delivery
// already ended.
func (s *Service) PushFor(ctx context.Context, id int64) (Push, bool, error) {
	n, err := s.store.GetNotification(ctx, id)
	if errors.Is(err, ErrNotificationNotFound) {
		return Push{}, false, nil
	}
	if err != nil {
		return Push{}, false, err
	}
	if n.Stale || n.Delivery != session.DeliveryPending || n.Session == nil {
		return Push{Notification: n}, false, nil
	}
	title, body := pushText(n)
	return Push{Notification: n, Title: title, Body: body}, true, nil
}

// RecordDelivery stores how a notification's delivery ended; one deleted meanwhile is fine.
func (s *Service) RecordDelivery(ctx context.Context, id int64, outcome string) error {
	err := s.store.SetNotificationDelivery(ctx, id, outcome)
	if errors.Is(err, ErrNotificationNotFound) {
		return nil
	}
	return err
}

// maxFailureBody bounds a failure push's body (push payloads are small).
const maxFailureBody = 200

// pushText is the title (the session's) and body of a notification (the original's wording;
// no model summarises the needs_input question here).
func pushText(n *session.Notification) (title, body string) {
	title = n.Session.DisplayTitle()
	switch n.Type {
	case session.NotifySessionComplete:
		return title, title + " has finished"
	case session.NotifyNeedsInput:
		return title, "Needs your input"
	case session.NotifySessionFailed:
		return title, failureBody(n.Session)
	case session.NotifyElicitationPending:
		return title, orDefault(n.Message, "Action approval needed")
	case session.NotifyCustomMessage:
		return title, orDefault(n.Message, title+" needs attention")
	}
	return title, title + " status updated"
}

// failureBody names why the session failed: its failure message, else its reason, with the
// detail when there is one.
func failureBody(sess *session.Session) string {
	summary := orDefault(session.BagString(sess.Metadata, session.MetaFailureMessage), session.BagString(sess.Metadata, session.MetaFailureReason))
	if summary == "" {
		return sess.DisplayTitle() + " encountered an error"
	}
	if detail := session.BagString(sess.Metadata, session.MetaFailureDetail); detail != "" {
		summary += " — " + detail
	}
	if r := []rune(summary); len(r) > maxFailureBody {
		summary = string(r[:maxFailureBody-3]) + "..."
	}
	return summary
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
