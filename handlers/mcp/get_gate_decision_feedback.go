package mcp

func getGateDecisionFeedbackTool() *toolDef {
	return notYet(&toolDef{name: "get_gate_decision_feedback", group: groupGateDecisions, full: variant{
		description: "Read the human corrections recorded against gate decisions.",
		schema: newSchema(paging(fields{
			"decision_id": integer("One decision's feedback."),
			"surface":     str("Only feedback on this surface."),
		})),
	}}, needsGateLedger)
}
