package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/catalog"
)

func getConfigsTool() *toolDef {
	return &toolDef{name: "get_configs", group: groupSessions, composites: []string{compositeSelf}, full: variant{
		description: "What a session can be built from: the MCP servers that can attach now (the rest named in an " +
			"Unavailable roster with the reason), the agent roots this connection may use with their defaults, each " +
			"runtime's models, and the goal catalog. Read it before start_session or a change_* action.",
		schema: newSchema(fields{}),
		run:    runGetConfigs,
	}}
}

func runGetConfigs(_ context.Context, c *call) (string, error) {
	cat, ready := c.h.ops.Readiness()
	var b doc
	writeServers(&b, cat, ready)
	writeRoots(&b, cat, ready, c.scope)
	writeRuntimes(&b, cat)
	writeGoals(&b, cat)
	b.heading(3, "Usage Notes")
	b.line("- Pass an agent root's name as `agent_root` to start_session; omitted lists (mcp_servers, skills, hooks, plugins) take the root's defaults, and an explicit `[]` means none.")
	b.line("- A model goes in `config.model` on start_session, or `model` on action_session's change_model; it must belong to the session's runtime.")
	b.line("- A goal id above may be passed as `goal`; it is replaced by the goal's description. Any other text is stored as written.")
	if c.scope.Restricted() {
		b.line("- This connection is restricted to the agent roots listed above; start_session must name one and keep its default MCP servers exactly.")
	}
	return b.String(), nil
}

// writeServers lists the servers that can start now and names the rest in a one-line-each
// Unavailable roster, so an agent can tell a broken server from a missing one.
func writeServers(b *doc, cat *catalog.Catalog, ready map[string]catalog.Readiness) {
	b.heading(2, "MCP Servers")
	var usable, broken []string
	for _, name := range sortedKeys(cat.MCPServers) {
		if ready[name].Blocks() {
			broken = append(broken, name)
		} else {
			usable = append(usable, name)
		}
	}
	switch {
	case len(cat.MCPServers) == 0:
		b.line("*No MCP servers available.*")
		return
	case len(usable) == 0:
		b.line("*Every catalog server is currently unavailable — see below.*")
	case len(broken) == 0:
		b.linef("Found %d usable server(s):", len(usable))
	default:
		b.linef("Found %d usable server(s) (of %d in the catalog; the other %d %s unavailable, listed below):",
			len(usable), len(cat.MCPServers), len(broken), plural(len(broken), "is", "are"))
	}
	for _, name := range usable {
		a := cat.MCPServers[name]
		b.heading(3, oneLine(a.Title))
		b.field("Name", "`"+name+"`")
		b.optField("Description", oneLine(a.Description))
	}
	if len(broken) > 0 {
		b.heading(3, "Unavailable")
		for _, name := range broken {
			b.linef("- `%s` — unavailable: %s", name, oneLine(ready[name].Reason))
		}
	}
}

func writeRoots(b *doc, cat *catalog.Catalog, ready map[string]catalog.Readiness, scope *Scope) {
	b.heading(2, "Agent Roots")
	shown := 0
	for _, name := range sortedKeys(cat.Roots) {
		if !scope.AllowsRoot(name) {
			continue // a fenced connection never sees the roots it may not use
		}
		shown++
		r := cat.Roots[name]
		b.heading(3, name)
		b.field("Name", "`"+name+"`")
		b.field("Git Root", r.URL)
		b.optField("Description", oneLine(r.Description))
		b.field("Default Branch", r.DefaultBranch)
		b.optField("Default Subdirectory", r.Subdirectory)
		b.field("Default MCP Servers", listOrNone(markUnavailable(ready, r.DefaultMCPServers)))
		b.optField("Default Goal", r.DefaultGoal)
		b.field("Default Skills", listOrNone(r.DefaultSkills))
		b.optField("Default Runtime", r.DefaultRuntime)
		b.optField("Default Model", r.DefaultModel)
	}
	if shown == 0 {
		b.line("*No agent roots are available to this connection.*")
	}
}

// markUnavailable flags a root default that cannot start: the list is otherwise copied into
// start_session verbatim.
func markUnavailable(ready map[string]catalog.Readiness, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if ready[n].Blocks() {
			out[i] += " (unavailable)"
		}
	}
	return out
}

func writeRuntimes(b *doc, cat *catalog.Catalog) {
	b.heading(2, "Runtime Models")
	for _, name := range cat.RuntimeNames() {
		rt := cat.Runtimes[name]
		b.heading(3, rt.Label)
		b.field("Runtime", "`"+name+"`")
		b.field("Default Model", cat.DefaultModel(name))
		models := make([]string, 0, len(rt.Models))
		for _, m := range rt.Models {
			var notes []string
			if m.Default {
				notes = append(notes, "default")
			}
			if m.RequiresOAuth {
				notes = append(notes, "requires OAuth")
			}
			entry := "`" + m.ID + "`"
			if len(notes) > 0 {
				entry += " (" + strings.Join(notes, ", ") + ")"
			}
			models = append(models, entry)
		}
		b.field("Models", strings.Join(models, ", "))
	}
}

func writeGoals(b *doc, cat *catalog.Catalog) {
	b.heading(2, "Goals")
	if len(cat.Goals) == 0 {
		b.line("*No goals in the catalog.*")
		return
	}
	for _, g := range cat.Goals {
		b.line(fmt.Sprintf("- **%s** (`%s`): %s", oneLine(g.Name), g.ID, oneLine(g.Description)))
	}
}
