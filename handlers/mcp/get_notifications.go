package mcp

func getNotificationsTool() *toolDef {
	return notYet(&toolDef{name: "get_notifications", group: groupNotifications, full: variant{
		description: "Read notifications: the pending badge count (badge_only), one notification by id, or the active " +
			"list newest first, optionally only read or unread ones.",
		schema: newSchema(paging(fields{
			"id":         integer("One notification's id."),
			"badge_only": boolean("Only the count of pending notifications."),
			"status":     str("Only read or only unread notifications.").enum("read", "unread"),
		})),
	}}, needsNotifications)
}
