package mcp

func searchGateDecisionsTool() *toolDef {
	return notYet(&toolDef{name: "search_gate_decisions", group: groupGateDecisions, full: variant{
		description: "Search the gate decision ledger — e.g. \"the last 10 holds on this surface\" — instead of loading " +
			"the whole ledger to calibrate one rating.",
		schema: newSchema(paging(fields{
			"query":    str("Text to match in the decisions."),
			"surface":  str("Only decisions on this surface."),
			"decision": str("Only this decision (e.g. hold, pass)."),
			"limit":    integer("At most this many, newest first.").min(1).max(100),
		})),
	}}, needsGateLedger)
}
