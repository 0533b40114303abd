package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/trigger"
)

func searchTriggersTool() *toolDef {
	return &toolDef{name: "search_triggers", group: groupTriggers, full: variant{
		description: "List triggers newest first (each with its conditions, status, sessions created and MCP servers), " +
			"filtered by condition type or status, or read one trigger by id with every condition's id and " +
			"configuration (poller cursors summarized so the JSON is safe to echo back to action_trigger).",
		schema: newSchema(paging(fields{
			"id":               integer("One trigger's id."),
			"trigger_type":     str("Only triggers with a condition of this type.").enum("slack", "schedule", "ao_event", "github_label", "github_issue", "system_event"),
			"status":           str("Only triggers in this status.").enum("enabled", "disabled", "failed"),
			"include_channels": boolean("Also list the Slack channels a trigger can listen to."),
		})),
		run: runSearchTriggers,
	}}
}

func runSearchTriggers(ctx context.Context, c *call) (string, error) {
	var b doc
	if id, ok := c.args.integer("id"); ok {
		t, err := c.h.ops.GetTrigger(ctx, id, c.scope.Roots)
		if isNotFound(err) {
			return "", fail("Trigger not found: %d", id)
		}
		if err != nil {
			return "", err
		}
		triggerDetail(&b, t, c.h.ops.Now())
		return b.String(), nil
	}
	page, _ := c.args.integer("page")
	per, _ := c.args.integer("per_page")
	list, p, err := c.h.ops.ListTriggers(ctx, orchestrator.TriggerListParams{Type: c.args.text("trigger_type"), Status: c.args.text("status"),
		Roots: c.scope.Roots, Page: int(page), PerPage: int(per)})
	if err != nil {
		return "", err
	}
	if p.TotalCount == 0 {
		b.heading(2, "Triggers")
		b.blank()
		b.line("No triggers found.")
	} else {
		b.heading(2, fmt.Sprintf("Triggers (%d total, page %d of %d)", p.TotalCount, p.Page, max(p.TotalPages, 1)))
		for _, t := range list {
			b.blank()
			b.heading(3, fmt.Sprintf("%s (ID: %d)", oneLine(t.Name), t.ID))
			b.line(strings.Join([]string{"Conditions: " + triggerTypes(t), "Status: " + string(t.Status),
				fmt.Sprintf("Sessions: %d", t.SessionsCreatedCount), "Max Sessions/Minute: " + capText(t),
				"Scheduling Class: " + classText(t)}, " | "))
			b.line("MCP Servers: " + listOrNone(t.MCPServers))
			for _, cond := range t.Conditions {
				b.linef("- [id %d] %s — %s", cond.ID, cond.Type, oneLine(trigger.Describe(cond)))
			}
		}
	}
	if c.args.flag("include_channels") {
		b.blank()
		b.heading(2, "Available Slack Channels")
		b.line("*Could not fetch Slack channels: this deployment has no Slack bot token, so it cannot list channels; use a channel id from Slack itself.*")
	}
	return b.String(), nil
}
