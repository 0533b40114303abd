package mcp

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func getNotificationsTool() *toolDef {
	return &toolDef{name: "get_notifications", group: groupNotifications, full: variant{
		description: "Read notifications: the pending badge count (badge_only), one notification by id, or the active " +
			"list newest first, optionally only read or unread ones.",
		schema: newSchema(paging(fields{
			"id":         integer("One notification's id."),
			"badge_only": boolean("Only the count of pending notifications."),
			"status":     str("Only read or only unread notifications.").enum("read", "unread"),
		})),
		run: runGetNotifications,
	}}
}

func runGetNotifications(ctx context.Context, c *call) (string, error) {
	if c.args.flag("badge_only") {
		n, err := c.h.ops.NotificationBadge(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("## Notification Badge\n\n**Pending notifications:** %d", n), nil
	}
	if id, ok := c.args.integer("id"); ok {
		n, err := c.h.ops.Notification(ctx, id)
		if err != nil {
			return "", err
		}
		var b doc
		b.heading(2, fmt.Sprintf("Notification #%d", n.ID))
		b.field("Type", n.Type)
		b.field("Read", map[bool]string{true: "Yes", false: "No"}[n.Read])
		b.field("Session ID", n.SessionID)
		if s := n.Session; s != nil {
			b.field("Session Title", oneLine(s.DisplayTitle()))
			b.field("Session Status", s.Status)
		}
		b.field("Created", timestamp(n.CreatedAt))
		return b.String(), nil
	}
	page, _ := c.args.integer("page")
	perPage, _ := c.args.integer("per_page")
	list, p, err := c.h.ops.Notifications(ctx, orchestrator.NotificationListParams{Status: c.args.text("status"), Page: int(page), PerPage: int(perPage)})
	if err != nil {
		return "", err
	}
	var b doc
	if len(list) == 0 {
		b.heading(2, "Notifications")
		b.line("No notifications found.")
		return b.String(), nil
	}
	b.heading(2, fmt.Sprintf("Notifications (%d total, page %d of %d)", p.TotalCount, p.Page, p.TotalPages))
	for _, n := range list {
		b.line(notificationLine(n))
	}
	if p.Page < p.TotalPages {
		b.blank()
		b.linef("*More notifications available. Use page=%d to see the next page.*", p.Page+1)
	}
	return b.String(), nil
}

// notificationLine is one notification in a list: "- **#<id>** [read|unread] <type> - <title>
// (<status>) (<created>)".
func notificationLine(n *session.Notification) string {
	state := map[bool]string{true: "read", false: "unread"}[n.Read]
	about := ""
	if s := n.Session; s != nil {
		about = fmt.Sprintf(" - %s (%s)", oneLine(s.DisplayTitle()), s.Status)
	}
	return fmt.Sprintf("- **#%d** [%s] %s%s (%s)", n.ID, state, n.Type, about, timestamp(n.CreatedAt))
}
