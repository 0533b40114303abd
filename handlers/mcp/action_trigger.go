package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/trigger"
)

type triggerAction func(context.Context, *call) (string, error)

var triggerActions = verbs[triggerAction]{
	{"create", actTriggerCreate}, {"update", actTriggerUpdate}, {"delete", actTriggerDelete},
	{"toggle", actTriggerToggle}, {"invoke", actTriggerInvoke},
}

func actionTriggerTool() *toolDef {
	condition := object("One condition: {id, trigger_type, configuration, remove}.").fields(fields{
		"id":            integer("An existing condition's id (update: edit it; with remove: delete it)."),
		"trigger_type":  str("The condition's type.").enum("slack", "schedule", "ao_event", "github_label", "github_issue", "system_event"),
		"configuration": object("The condition's settings."),
		"remove":        boolean("Delete the condition named by id."),
	})
	return &toolDef{name: "action_trigger", group: groupTriggers, write: true, full: variant{
		description: "Create, update, delete, toggle or invoke (fire now) a trigger. A trigger ORs its conditions; pass " +
			"one trigger_type + configuration pair, or a conditions array (upserted on update: elements with an id edit, " +
			"without append, {id, remove: true} deletes). catalog_skills/hooks/plugins are validated against the catalog; " +
			"an empty list means the agent root's defaults. Schedules: {scheduled_at, timezone} once, {cron, timezone}, or " +
			"{interval, unit: minutes|hours|days|weeks, time, day_of_week, timezone}.",
		schema: newSchema(fields{
			"action":                  triggerActions.enum(),
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
			"variables":               object("invoke: values for the template's placeholders (link, text, author, channel, event, repo, number, title, labels)."),
			"configuration":           object("The single condition's settings."),
			"conditions":              list("Several conditions at once.", condition),
		}, "action"),
		run: func(ctx context.Context, c *call) (string, error) {
			act, err := triggerActions.lookup(c.args.text("action"))
			if err != nil {
				return "", err
			}
			return act(ctx, c)
		},
	}}
}

// triggerID is the id argument the by-id actions need.
func triggerID(c *call) (int64, error) {
	id, ok := c.args.integer("id")
	if !ok {
		return 0, fail("\"id\" is required for the %q action.", c.args.text("action"))
	}
	return id, nil
}

// triggerParams reads the fields sent; conditions come from the flat pair or the array.
func triggerParams(c *call, current *trigger.Trigger) (orchestrator.TriggerParams, error) {
	a := c.args
	p := orchestrator.TriggerParams{Name: a.str("name"), AgentRootName: a.str("agent_root_name"), PromptTemplate: a.str("prompt_template"),
		Status: a.str("status"), ReuseSession: a.optFlag("reuse_session"), EnqueueMessages: a.optFlag("enqueue_messages"),
		ResuscitateArchived: a.optFlag("resuscitate_archived"), MCPServers: a.list("mcp_servers"), CatalogSkills: a.list("catalog_skills"),
		CatalogHooks: a.list("catalog_hooks"), CatalogPlugins: a.list("catalog_plugins")}
	if a.has("goal") {
		p.Goal = orchestrator.Opt[string]{Set: true, Value: a.str("goal")}
	}
	for k, into := range map[string]*orchestrator.Opt[int64]{"max_sessions_per_minute": &p.MaxSessionsPerMinute, "precedence": &p.Precedence} {
		if a.has(k) {
			*into = orchestrator.Opt[int64]{Set: true, Value: a.optInt(k)}
		}
	}
	if a.has("scheduling_class") {
		p.SchedulingClass = orchestrator.Opt[string]{Set: true, Value: a.str("scheduling_class")}
	}
	for _, k := range []string{"enqueue_messages", "resuscitate_archived"} {
		if a.flag(k) && !a.flag("reuse_session") {
			return p, fail("%s requires reuse_session: true in the same call — with reuse off a fire that lands on a running session is dropped, and the flag would be cleared. Send reuse_session: true, or drop %s.", k, k)
		}
	}
	if c.scope.Restricted() && p.CatalogPlugins != nil {
		return p, fail("catalog_plugins is refused on a connection restricted to agent roots: a plugin bundles MCP servers of its own. Omit it; spawned sessions take the root's default plugins.")
	}
	conds, err := conditionEdits(c, current)
	p.Conditions = conds
	return p, err
}

func conditionEdits(c *call, current *trigger.Trigger) ([]orchestrator.ConditionEdit, error) {
	a := c.args
	flat := a.has("trigger_type") || a.has("configuration")
	if a.has("conditions") {
		raw, _ := a["conditions"].([]any)
		if len(raw) == 0 {
			return nil, fail("\"conditions\" was sent empty. Send at least one condition, or omit the key to leave the trigger's conditions alone.")
		}
		if flat {
			return nil, fail("\"conditions\" cannot be combined with the top-level \"trigger_type\"/\"configuration\" pair — send one or the other.")
		}
		edits := make([]orchestrator.ConditionEdit, len(raw))
		for i, r := range raw {
			m, _ := r.(map[string]any)
			el := args(m)
			id, _ := el.integer("id")
			if current == nil && (id != 0 || el.flag("remove")) {
				return nil, fail("conditions[%d] carries an id or remove; a new trigger's conditions are all new.", i)
			}
			if current == nil && el.text("trigger_type") == "" {
				return nil, fail("conditions[%d] is missing \"trigger_type\".", i)
			}
			edits[i] = orchestrator.ConditionEdit{ID: id, Type: trigger.Type(el.text("trigger_type")), Config: normalizeJSON(el.object("configuration")), Remove: el.flag("remove")}
		}
		return edits, nil
	}
	if !flat {
		return nil, nil
	}
	typ := trigger.Type(a.text("trigger_type"))
	cfg := normalizeJSON(a.object("configuration"))
	if current == nil {
		if cfg == nil {
			cfg = map[string]any{}
		}
		return []orchestrator.ConditionEdit{{Type: typ, Config: cfg}}, nil
	}
	return flatUpdate(current, typ, cfg)
}

// flatUpdate aims the flat pair of an update at the condition of its type, or the sole one.
func flatUpdate(t *trigger.Trigger, typ trigger.Type, cfg map[string]any) ([]orchestrator.ConditionEdit, error) {
	var same []trigger.Condition
	for _, c := range t.Conditions {
		if c.Type == typ {
			same = append(same, c)
		}
	}
	switch {
	case typ != "" && len(same) == 1:
		return []orchestrator.ConditionEdit{{ID: same[0].ID, Config: cfg}}, nil
	case typ != "" && len(same) > 1:
		return nil, fail("Trigger %d has %d %s conditions; name the one to edit with a conditions array ({id, configuration}).", t.ID, len(same), typ)
	case len(t.Conditions) != 1:
		if typ == "" {
			return nil, fail("Cannot update trigger configuration without a trigger_type when the trigger has zero or multiple conditions.")
		}
		if cfg == nil {
			return nil, fail("Adding a %s condition needs its configuration.", typ)
		}
		return []orchestrator.ConditionEdit{{Type: typ, Config: cfg}}, nil
	}
	// One condition: the pair edits it, a new type replacing it.
	return []orchestrator.ConditionEdit{{ID: t.Conditions[0].ID, Type: typ, Config: cfg}}, nil
}

func actTriggerCreate(ctx context.Context, c *call) (string, error) {
	a := c.args
	if a.text("name") == "" || a.text("agent_root_name") == "" || a.str("prompt_template") == nil || (!a.has("trigger_type") && !a.has("conditions")) {
		return "", fail("\"name\", \"agent_root_name\", and \"prompt_template\" are required for the \"create\" action, plus either \"trigger_type\" or a \"conditions\" array.")
	}
	if err := c.fenceRoot(a.text("agent_root_name")); err != nil {
		return "", err
	}
	p, err := triggerParams(c, nil)
	if err != nil {
		return "", err
	}
	t, warnings, err := c.h.ops.CreateTrigger(ctx, p, c.scope.Roots)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Trigger Created")
	triggerSummary(&b, t, warnings)
	return b.String(), nil
}

func actTriggerUpdate(ctx context.Context, c *call) (string, error) {
	id, err := triggerID(c)
	if err != nil {
		return "", err
	}
	current, err := c.h.ops.GetTrigger(ctx, id, c.scope.Roots)
	if isNotFound(err) {
		return "", fail("Trigger not found: %d", id)
	}
	if err != nil {
		return "", err
	}
	if root := c.args.text("agent_root_name"); root != "" {
		if err := c.fenceRoot(root); err != nil {
			return "", err
		}
	}
	p, err := triggerParams(c, current)
	if err != nil {
		return "", err
	}
	t, warnings, err := c.h.ops.UpdateTrigger(ctx, id, p, c.scope.Roots)
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Trigger Updated")
	triggerSummary(&b, t, warnings)
	return b.String(), nil
}

func actTriggerDelete(ctx context.Context, c *call) (string, error) {
	id, err := triggerID(c)
	if err != nil {
		return "", err
	}
	if err := c.h.ops.DeleteTrigger(ctx, id, c.scope.Roots); isNotFound(err) {
		return "", fail("Trigger not found: %d", id)
	} else if err != nil {
		return "", err
	}
	return fmt.Sprintf("## Trigger Deleted\n\nTrigger %d has been deleted.", id), nil
}

func actTriggerToggle(ctx context.Context, c *call) (string, error) {
	id, err := triggerID(c)
	if err != nil {
		return "", err
	}
	t, err := c.h.ops.ToggleTrigger(ctx, id, c.scope.Roots)
	if isNotFound(err) {
		return "", fail("Trigger not found: %d", id)
	}
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Trigger Toggled")
	b.field("Trigger", fmt.Sprintf("%s (ID: %d)", oneLine(t.Name), t.ID))
	b.field("New Status", t.Status)
	return b.String(), nil
}

func actTriggerInvoke(ctx context.Context, c *call) (string, error) {
	id, err := triggerID(c)
	if err != nil {
		return "", err
	}
	res, err := c.h.ops.InvokeTrigger(ctx, id, normalizeJSON(c.args.object("variables")), c.scope.Roots)
	if isNotFound(err) {
		return "", fail("Trigger not found: %d", id)
	}
	if err != nil {
		return "", err
	}
	var b doc
	switch res.Outcome {
	case orchestrator.FireSpawned, orchestrator.FireDelivered, orchestrator.FireQueued, orchestrator.FireBurstNotice:
		heading := "Trigger Invoked"
		if res.Outcome == orchestrator.FireBurstNotice {
			heading = "Trigger Invoked — Burst Notice"
		}
		b.heading(2, heading)
		b.field("Trigger", fmt.Sprintf("%s (ID: %d)", oneLine(res.Trigger.Name), res.Trigger.ID))
		slug := ""
		if res.Session.Slug != nil {
			slug = " (" + *res.Session.Slug + ")"
		}
		b.field("Session", fmt.Sprintf("#%d%s", res.Session.ID, slug))
		b.field("Session Status", res.Session.Status)
		b.field("Session URL", sessionURL(c, res.Session.ID))
		b.field("Sessions Created (lifetime)", res.Trigger.SessionsCreatedCount)
		if res.Outcome == orchestrator.FireQueued {
			b.line("The session was running: the prompt is queued for the end of its turn.")
		}
		if res.Message != "" {
			b.line(res.Message)
		}
	default:
		b.heading(2, "Trigger Not Fired")
		b.line(strings.TrimSpace(res.Message))
		if res.Session != nil {
			b.linef("Target session: %d — %s", res.Session.ID, sessionURL(c, res.Session.ID))
		}
	}
	return b.String(), nil
}
