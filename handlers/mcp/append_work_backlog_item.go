package mcp

func appendWorkBacklogItemTool() *toolDef {
	return notYet(&toolDef{name: "append_work_backlog_item", group: groupWorkBacklog, write: true, full: variant{
		description: "Append a cleared issue to the work backlog, placed by the band rules and stamped with the writing " +
			"session and its agent root. prompt, precedence, pinned and added_by are refused: placement is the human's.",
		schema: newSchema(fields{
			"issue_url": str("The cleared issue."),
			"title":     str("A one-line title."),
			"band":      str("The band the item belongs in."),
			"notes":     str("Context for whoever picks it up."),
		}, "issue_url"),
	}}, needsBacklog)
}
