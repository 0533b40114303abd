package mcp

import "context"

var costsFields = fields{
	"days":       integer("Window in days (default 7; ignored with from/to).").min(1).max(365),
	"from":       str("First day, YYYY-MM-DD."),
	"to":         str("Last day, YYYY-MM-DD (default today)."),
	"agent_root": str("Only this agent root's spend."),
	"session_id": integer("Only this session's spend (wins over agent_root)."),
}

func getCostsTool() *toolDef {
	full := newSchema(costsFields)
	return notYet(&toolDef{name: "get_costs", group: groupHealth, composites: []string{compositeSelf},
		full: variant{
			description: "Token spend from the ledger, at list price: by agent root, model, session and kind of token, " +
				"fleet-wide by default; agent_root or session_id scope it, days or from/to set the window.",
			schema: full,
		},
		overrides: map[string]variant{compositeSelf: {
			description: "This session's own token spend at list price — the session this connection was written for, " +
				"never the fleet's. The fleet report lives in the health tool group and on the Costs page.",
			schema: full.only("days", "from", "to", "session_id"),
			run:    runSelfCosts,
		}},
	}, needsLedger)
}

// runSelfCosts enforces the self-scoped variant's aim — no agent_root, no other session's id,
// some session named — before answering that the ledger is missing.
func runSelfCosts(ctx context.Context, c *call) (string, error) {
	if c.args.has("agent_root") {
		return "", fail("agent_root is not accepted here: this get_costs reports only the calling session's own spend. " +
			"The fleet report, by agent root, is get_costs on a connection with the health tool group, or the Costs page.")
	}
	if _, err := c.ownSession(ctx, "session_id"); err != nil {
		return "", err
	}
	return "", unavailable(c.name, needsLedger)
}
