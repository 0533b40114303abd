package mcp

import "context"

func sendPushNotificationTool() *toolDef {
	return &toolDef{name: "send_push_notification", group: groupNotifications, write: true,
		composites: []string{compositeSelf}, full: variant{
			description: "Send a push notification with a custom message about a session to the humans' devices. Use it " +
				"sparingly: only when a session genuinely needs human attention (a missing credential, an approval).",
			schema: newSchema(fields{
				"session_id": sessionRef("The session the notification is about: id or slug."),
				"message":    str("The notification text: what the human needs to do."),
			}, "session_id", "message"),
			run: runSendPushNotification,
		}}
}

func runSendPushNotification(ctx context.Context, c *call) (string, error) {
	id, err := c.resolve(ctx, c.args.text("session_id"))
	if err != nil {
		return "", err
	}
	message := c.args.text("message")
	if message == "" {
		return "", fail("Missing required parameter: message")
	}
	n, err := c.h.ops.PushMessage(ctx, id, message)
	if err != nil {
		return "", sessionNotFound(err, id)
	}
	var b doc
	b.heading(2, "Push Notification Sent")
	b.field("Session ID", id)
	b.field("Notification", oneLine(n.Message))
	b.field("Status", "Push notification queued")
	return b.String(), nil
}
