package mcp

func getSpotPolicyTool() *toolDef {
	return notYet(&toolDef{name: "get_spot_policy", group: groupHealth, full: variant{
		description: "The spot gate: whether spot sessions are running or held and why, the quota windows against " +
			"their targets, and the scheduling class of each genesis.",
		schema: newSchema(fields{}),
	}}, needsSpotPolicy)
}
