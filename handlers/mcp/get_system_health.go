package mcp

func getSystemHealthTool() *toolDef {
	return notYet(&toolDef{name: "get_system_health", group: groupHealth, full: variant{
		description: "The deployment's health: queue recovery mode, ready backlog by queue and job class with " +
			"head-of-line ages, in-flight/oldest/youngest execution per lane, dependency checks and the secret store's " +
			"namespaces (names only).",
		schema: newSchema(fields{
			"include_cli_status": boolean("Also report the agent CLIs' status."),
		}),
	}}, needsHealth)
}
