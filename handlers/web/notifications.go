package web

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The notifications inbox: what the sessions asked the humans for, newest first. Every page's
// header carries the pending count (see render).

// notificationRoutes are the inbox and its actions.
var notificationRoutes = []Route{
	{http.MethodGet, "/notifications", (*Handler).listNotifications},
	{http.MethodPost, "/notifications/mark_all_read", (*Handler).markAllNotificationsRead},
	{http.MethodPost, "/notifications/dismiss_all_read", (*Handler).dismissReadNotifications},
	{http.MethodPost, "/notifications/:id/mark_read", (*Handler).markNotificationRead},
	{http.MethodPost, "/notifications/:id/dismiss", (*Handler).dismissNotification},
}

type notificationsPage struct {
	Notifications []*session.Notification
	Page          orchestrator.Page
	Status        string // the filter: "", read, unread
	Prev, Next    int
	Notice        string
}

var notificationNotices = map[string]string{
	"read": "Marked read.", "dismissed": "Dismissed.", "all_read": "Every notification is marked read.", "all_dismissed": "Every read notification is dismissed.",
}

func (h *Handler) listNotifications(c *gin.Context) {
	page, _ := strconv.Atoi(c.Query("page"))
	status := c.Query("status")
	list, p, err := h.ops.Notifications(c.Request.Context(), orchestrator.NotificationListParams{Status: status, Page: page})
	if err != nil {
		h.fail(c, err)
		return
	}
	data := notificationsPage{Notifications: list, Page: p, Status: status, Notice: notificationNotices[c.Query("notice")]}
	if p.Page > 1 {
		data.Prev = p.Page - 1
	}
	if p.Page < p.TotalPages {
		data.Next = p.Page + 1
	}
	h.render(c, http.StatusOK, "notifications.html", "Notifications", data)
}

func (h *Handler) markNotificationRead(c *gin.Context) {
	h.onNotification(c, "read", func(id int64) error {
		_, err := h.ops.MarkNotificationRead(c.Request.Context(), id)
		return err
	})
}

func (h *Handler) dismissNotification(c *gin.Context) {
	h.onNotification(c, "dismissed", func(id int64) error { return h.ops.DismissNotification(c.Request.Context(), id) })
}

// onNotification runs op on the notification :id names and returns to the inbox.
func (h *Handler) onNotification(c *gin.Context, notice string, op func(id int64) error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		err = &orchestrator.NotFoundError{Message: fmt.Sprintf("Notification not found: %s", c.Param("id"))}
	} else {
		err = op(id)
	}
	if err != nil {
		h.refuse(c, err, "/notifications")
		return
	}
	c.Redirect(http.StatusSeeOther, "/notifications?notice="+notice)
}

func (h *Handler) markAllNotificationsRead(c *gin.Context) {
	if _, _, err := h.ops.MarkAllNotificationsRead(c.Request.Context()); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/notifications?notice=all_read")
}

func (h *Handler) dismissReadNotifications(c *gin.Context) {
	if _, _, err := h.ops.DismissReadNotifications(c.Request.Context()); err != nil {
		h.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/notifications?notice=all_dismissed")
}
