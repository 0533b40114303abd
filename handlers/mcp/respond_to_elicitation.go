package mcp

func respondToElicitationTool() *toolDef {
	return notYet(&toolDef{name: "respond_to_elicitation", group: groupSessions, write: true, full: variant{
		description: "Answer a pending elicitation (an MCP server asking a session's agent for input): accept with " +
			"content, decline, or cancel. The blocked session resumes with the answer.",
		schema: newSchema(fields{
			"request_id":  str("The elicitation's public request id, or its numeric id."),
			"action_type": str("How to answer.").enum("accept", "decline", "cancel"),
			"content":     object("The answer (accept only): a JSON object matching the requested schema."),
		}, "request_id", "action_type"),
	}}, "elicitation records (an agent's question waiting for an answer), which the session runner does not create yet")
}
