package mcp

func actionNotificationTool() *toolDef {
	return notYet(&toolDef{name: "action_notification", group: groupNotifications, write: true, full: variant{
		description: "Mark a notification read, mark all read, dismiss a read notification, or dismiss every read one.",
		schema: newSchema(fields{
			"action": str("What to do.").enum("mark_read", "mark_all_read", "dismiss", "dismiss_all_read"),
			"id":     integer("The notification (mark_read, dismiss)."),
		}, "action"),
	}}, needsNotifications)
}
