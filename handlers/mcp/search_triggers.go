package mcp

func searchTriggersTool() *toolDef {
	return notYet(&toolDef{name: "search_triggers", group: groupTriggers, full: variant{
		description: "List triggers newest first (each with its conditions, status, sessions created and MCP servers), " +
			"filtered by condition type or status, or read one trigger by id with every condition's id and " +
			"configuration (poller cursors summarized so the JSON is safe to echo back to action_trigger).",
		schema: newSchema(paging(fields{
			"id":               integer("One trigger's id."),
			"trigger_type":     str("Only triggers with a condition of this type.").enum("slack", "schedule", "ao_event", "github_label", "github_issue", "system_event"),
			"status":           str("Only triggers in this status.").enum("enabled", "disabled", "failed"),
			"include_channels": boolean("Also list the Slack channels a trigger can listen to."),
		})),
	}}, needsTriggers)
}
