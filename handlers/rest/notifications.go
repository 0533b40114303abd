package rest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// notificationRoutes are the notification inbox and the push route.
var notificationRoutes = []Route{
	{http.MethodGet, "/notifications", (*Handler).listNotifications},
	{http.MethodGet, "/notifications/badge", (*Handler).notificationBadge},
	{http.MethodGet, "/notifications/:id", (*Handler).showNotification},
	{http.MethodPatch, "/notifications/:id/mark_read", (*Handler).markNotificationRead},
	{http.MethodPatch, "/notifications/mark_all_read", (*Handler).markAllNotificationsRead},
	{http.MethodDelete, "/notifications/:id/dismiss", (*Handler).dismissNotification},
	{http.MethodDelete, "/notifications/dismiss_all_read", (*Handler).dismissReadNotifications},
	{http.MethodPost, "/notifications/push", (*Handler).pushNotification},
}

type notificationSessionJSON struct {
	ID     int64   `json:"id"`
	Slug   *string `json:"slug"`
	Title  *string `json:"title"`
	Status string  `json:"status"`
}

type notificationJSON struct {
	ID               int64                    `json:"id"`
	SessionID        int64                    `json:"session_id"`
	NotificationType string                   `json:"notification_type"`
	Read             bool                     `json:"read"`
	Stale            bool                     `json:"stale"`
	CreatedAt        time.Time                `json:"created_at"`
	UpdatedAt        time.Time                `json:"updated_at"`
	Session          *notificationSessionJSON `json:"session,omitempty"`
}

func renderNotification(n *session.Notification) notificationJSON {
	out := notificationJSON{ID: n.ID, SessionID: n.SessionID, NotificationType: n.Type, Read: n.Read, Stale: n.Stale,
		CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
	if s := n.Session; s != nil {
		out.Session = &notificationSessionJSON{ID: s.ID, Slug: s.Slug, Title: s.Title, Status: string(s.Status)}
	}
	return out
}

// listNotifications is GET /notifications: the active ones, newest first; status=read|unread.
func (h *Handler) listNotifications(c *gin.Context) error {
	page, perPage := pageQuery(c)
	list, p, err := h.ops.Notifications(c.Request.Context(), orchestrator.NotificationListParams{Status: c.Query("status"), Page: page, PerPage: perPage})
	if err != nil {
		return err
	}
	out := make([]notificationJSON, 0, len(list))
	for _, n := range list {
		out = append(out, renderNotification(n))
	}
	c.JSON(http.StatusOK, gin.H{"notifications": out, "pagination": renderPage(p)})
	return nil
}

// notificationID reads :id; a key that is not an id names no notification.
func notificationID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return 0, &orchestrator.NotFoundError{Message: fmt.Sprintf("Notification not found: %s", c.Param("id"))}
	}
	return id, nil
}

// showNotification is GET /notifications/:id (stale ones included).
func (h *Handler) showNotification(c *gin.Context) error {
	return h.oneNotification(c, h.ops.Notification)
}

// markNotificationRead is PATCH /notifications/:id/mark_read.
func (h *Handler) markNotificationRead(c *gin.Context) error {
	return h.oneNotification(c, h.ops.MarkNotificationRead)
}

func (h *Handler) oneNotification(c *gin.Context, op func(ctx context.Context, id int64) (*session.Notification, error)) error {
	id, err := notificationID(c)
	if err != nil {
		return err
	}
	n, err := op(c.Request.Context(), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"notification": renderNotification(n)})
	return nil
}

// notificationBadge is GET /notifications/badge: how many are pending (active and unread).
func (h *Handler) notificationBadge(c *gin.Context) error {
	n, err := h.ops.NotificationBadge(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"pending_count": n})
	return nil
}

// markAllNotificationsRead is PATCH /notifications/mark_all_read.
func (h *Handler) markAllNotificationsRead(c *gin.Context) error {
	marked, pending, err := h.ops.MarkAllNotificationsRead(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"marked_count": marked, "pending_count": pending})
	return nil
}

// dismissNotification is DELETE /notifications/:id/dismiss: 204, or 422 while it is unread.
func (h *Handler) dismissNotification(c *gin.Context) error {
	id, err := notificationID(c)
	if err != nil {
		return err
	}
	if err := h.ops.DismissNotification(c.Request.Context(), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// dismissReadNotifications is DELETE /notifications/dismiss_all_read.
func (h *Handler) dismissReadNotifications(c *gin.Context) error {
	dismissed, pending, err := h.ops.DismissReadNotifications(c.Request.Context())
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"dismissed_count": dismissed, "pending_count": pending})
	return nil
}

// pushNotification is POST /notifications/push {session_id (id or slug), message}: records a
// custom_message notification and queues its delivery.
func (h *Handler) pushNotification(c *gin.Context) error {
	b, err := readBody(c.Request)
	if err != nil {
		return err
	}
	key, message := b.rawText("session_id"), b.str("message")
	switch {
	case key == "":
		return &requestError{http.StatusUnprocessableEntity, "Missing parameter", []string{"session_id is required"}}
	case message == nil || strings.TrimSpace(*message) == "":
		return &requestError{http.StatusUnprocessableEntity, "Missing parameter", []string{"message is required"}}
	}
	ctx := c.Request.Context()
	id, err := h.ops.Resolve(ctx, key)
	if err != nil {
		return err
	}
	if _, err := h.ops.PushMessage(ctx, id, *message); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"success": true, "message": "Push notification queued", "session_id": id})
	return nil
}
