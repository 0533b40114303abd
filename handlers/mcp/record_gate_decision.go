package mcp

func recordGateDecisionTool() *toolDef {
	return notYet(&toolDef{name: "record_gate_decision", group: groupGateDecisions, write: true, full: variant{
		description: "Record one gate decision in the ledger. human_feedback is never written from here (it is scrubbed " +
			"from every entry); only the browser writes it.",
		schema: newSchema(fields{
			"session_id": sessionRef("The session the decision is about: id or slug."),
			"surface":    str("The gated surface."),
			"decision":   str("The decision (e.g. hold, pass)."),
			"rationale":  str("Why."),
			"details":    object("Anything else worth keeping."),
		}, "surface", "decision"),
	}}, needsGateLedger)
}
