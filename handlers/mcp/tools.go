package mcp

// catalog is every tool, in the order tools/list shows them.
func (h *Handler) catalog() []*toolDef {
	return []*toolDef{
		quickSearchSessionsTool(), getSessionTool(), getSessionProvenanceTool(), getConfigsTool(),
		getTranscriptArchiveTool(), startSessionTool(), actionSessionTool(), manageEnqueuedMessagesTool(),
		manageCategoriesTool(), respondToElicitationTool(), saveOutcomeAnalysisTool(),
		getNotificationsTool(), sendPushNotificationTool(), actionNotificationTool(),
		searchTriggersTool(), actionTriggerTool(), wakeMeUpLaterTool(), wakeMeUpWhenSessionChangesStateTool(),
		getSystemHealthTool(), actionHealthTool(), getCostsTool(), getSpotPolicyTool(), actionSpotPolicyTool(),
		searchGateDecisionsTool(), getGateDecisionFeedbackTool(), recordGateDecisionTool(),
		getWorkBacklogTool(), appendWorkBacklogItemTool(), pullWorkBacklogItemsTool(),
	}
}

// paging are the page/per_page arguments every listing takes.
func paging(f fields) fields {
	f["page"] = integer("Page number (default 1).").min(1)
	f["per_page"] = integer("Results per page (default 25, at most 100).").min(1).max(100)
	return f
}
