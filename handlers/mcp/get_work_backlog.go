package mcp

func getWorkBacklogTool() *toolDef {
	return notYet(&toolDef{name: "get_work_backlog", group: groupWorkBacklog, full: variant{
		description: "The work backlog in rank order, each item with its whole-queue position.",
		schema:      newSchema(paging(fields{})),
	}}, needsBacklog)
}
