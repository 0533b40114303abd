package mcp

func sendPushNotificationTool() *toolDef {
	return notYet(&toolDef{name: "send_push_notification", group: groupNotifications, write: true,
		composites: []string{compositeSelf}, full: variant{
			description: "Send a push notification with a custom message about a session to the humans' devices.",
			schema: newSchema(fields{
				"session_id": sessionRef("The session the notification is about: id or slug."),
				"message":    str("The notification text."),
			}, "session_id", "message"),
		}}, needsNotifications)
}
