package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/zimmerhq/zimmer/orchestrator"
)

func actionNotificationTool() *toolDef {
	return &toolDef{name: "action_notification", group: groupNotifications, write: true, full: variant{
		description: "Mark a notification read, mark all read, dismiss a read notification, or dismiss every read one.",
		schema: newSchema(fields{
			"action": notificationVerbs.enum(),
			"id":     integer("The notification (mark_read, dismiss)."),
		}, "action"),
		run: runActionNotification,
	}}
}

var notificationVerbs = verbs[func(context.Context, *call) (string, error)]{
	{"mark_read", notificationMarkRead}, {"mark_all_read", notificationMarkAllRead},
	{"dismiss", notificationDismiss}, {"dismiss_all_read", notificationDismissAllRead},
}

func runActionNotification(ctx context.Context, c *call) (string, error) {
	run, err := notificationVerbs.lookup(c.args.text("action"))
	if err != nil {
		return "", err
	}
	return run(ctx, c)
}

// notificationIDArg is the id the named action needs.
func notificationIDArg(c *call) (int64, error) {
	id, ok := c.args.integer("id")
	if !ok {
		return 0, fail("%q is required for the %q action.", "id", c.args.text("action"))
	}
	return id, nil
}

func notificationMarkRead(ctx context.Context, c *call) (string, error) {
	id, err := notificationIDArg(c)
	if err != nil {
		return "", err
	}
	n, err := c.h.ops.MarkNotificationRead(ctx, id)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Notification Marked Read")
	b.field("ID", n.ID)
	b.field("Type", n.Type)
	return b.String(), nil
}

func notificationMarkAllRead(ctx context.Context, c *call) (string, error) {
	marked, pending, err := c.h.ops.MarkAllNotificationsRead(ctx)
	return bulkResult("All Notifications Marked Read", "Marked", marked, pending, err)
}

// bulkResult reports an action over many notifications: how many it touched and how many are
// still pending.
func bulkResult(heading, touched string, n, pending int, err error) (string, error) {
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, heading)
	b.field(touched, n)
	b.field("Remaining Pending", pending)
	return b.String(), nil
}

func notificationDismiss(ctx context.Context, c *call) (string, error) {
	id, err := notificationIDArg(c)
	if err != nil {
		return "", err
	}
	if err := c.h.ops.DismissNotification(ctx, id); err != nil {
		if errors.Is(err, orchestrator.ErrInvalid) {
			return "", fail("Cannot dismiss unread notification")
		}
		return "", err
	}
	return fmt.Sprintf("## Notification Dismissed\n\nNotification %d has been deleted.", id), nil
}

func notificationDismissAllRead(ctx context.Context, c *call) (string, error) {
	dismissed, pending, err := c.h.ops.DismissReadNotifications(ctx)
	return bulkResult("Read Notifications Dismissed", "Dismissed", dismissed, pending, err)
}
