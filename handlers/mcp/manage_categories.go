package mcp

func manageCategoriesTool() *toolDef {
	return notYet(&toolDef{name: "manage_categories", group: groupSessions, write: true, full: variant{
		description: "Organize sessions into categories: list, create, update (name, description, is_frozen), delete " +
			"(its sessions fall back to Uncategorized), reorder, and set_session_category.",
		schema: newSchema(fields{
			"action":      str("What to do.").enum("list", "create", "update", "delete", "reorder", "set_session_category"),
			"category_id": number("The category; null clears a session's category.").nullable(),
			"name":        str("The category's name (unique, case-insensitively).").maxLen(100),
			"description": str("What belongs in it (blank clears).").maxLen(1000),
			"is_frozen":   boolean("A frozen category's sessions are left out of bulk refreshes."),
			"ids":         list("reorder: category ids in their new order (\"uncategorized\" for the default).", anyOf("", "number", "string")),
			"session_id":  sessionRef("set_session_category: the session."),
		}, "action"),
	}}, "categories, which are not built yet")
}
