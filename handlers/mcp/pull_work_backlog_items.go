package mcp

func pullWorkBacklogItemsTool() *toolDef {
	return notYet(&toolDef{name: "pull_work_backlog_items", group: groupWorkBacklog, write: true, full: variant{
		description: "Pull the top backlog items into spot sessions, one zimmer-orchestrator child of the caller per item, " +
			"recorded on the row; an item may be removed only on a pull, with a reason from a fixed vocabulary.",
		schema: newSchema(fields{
			"count":      integer("How many items to pull.").min(1).max(20),
			"session_id": sessionRef("The pulling session; defaults to this connection's session."),
		}),
	}}, needsBacklog)
}
