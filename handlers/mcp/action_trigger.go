package mcp

func actionTriggerTool() *toolDef {
	condition := object("One condition: {id, trigger_type, configuration, remove}.").fields(fields{
		"id":            integer("An existing condition's id (update: edit it; with remove: delete it)."),
		"trigger_type":  str("The condition's type.").enum("slack", "schedule", "ao_event", "github_label", "github_issue", "system_event"),
		"configuration": object("The condition's settings."),
		"remove":        boolean("Delete the condition named by id."),
	})
	return notYet(&toolDef{name: "action_trigger", group: groupTriggers, write: true, full: variant{
		description: "Create, update, delete, toggle or invoke (fire now) a trigger. A trigger ORs its conditions; pass " +
			"one trigger_type + configuration pair, or a conditions array (upserted on update: elements with an id edit, " +
			"without append, {id, remove: true} deletes). catalog_skills/hooks/plugins are validated against the catalog; " +
			"an empty list means the agent root's defaults.",
		schema: newSchema(fields{
			"action":                  str("What to do.").enum("create", "update", "delete", "toggle", "invoke"),
			"id":                      integer("The trigger (update, delete, toggle, invoke)."),
			"name":                    str("The trigger's name."),
			"trigger_type":            str("The single condition's type.").enum("slack", "schedule", "github_label", "github_issue", "system_event"),
			"agent_root_name":         str("The agent root its sessions are spawned on."),
			"prompt_template":         str("The prompt its sessions start with; {{placeholders}} are filled from variables."),
			"status":                  str("enabled or disabled (failed is Zimmer's to set).").enum("enabled", "disabled"),
			"goal":                    str("The goal its sessions get."),
			"reuse_session":           boolean("Fire onto the last session instead of spawning a new one."),
			"enqueue_messages":        boolean("With reuse_session: queue a fire that lands on a running session."),
			"resuscitate_archived":    boolean("With reuse_session: unarchive the session a fire lands on."),
			"max_sessions_per_minute": integer("Burst cap; null removes it.").min(1).nullable(),
			"scheduling_class":        str("spot or priority; null derives it.").enum("spot", "priority").nullable(),
			"precedence":              integer("Precedence of its sessions; null removes it.").nullable(),
			"mcp_servers":             strList("MCP servers its sessions get."),
			"catalog_skills":          strList("Skills its sessions get ([] = the root's defaults)."),
			"catalog_hooks":           strList("Hooks its sessions get ([] = the root's defaults)."),
			"catalog_plugins":         strList("Plugins its sessions get ([] = the root's defaults)."),
			"variables":               object("invoke: values for the template's placeholders."),
			"configuration":           object("The single condition's settings."),
			"conditions":              list("Several conditions at once.", condition),
		}, "action"),
	}}, needsTriggers)
}
