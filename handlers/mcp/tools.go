package mcp

import "context"

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

// What the tools that belong to other parts of Zimmer are waiting for.
const (
	needsSpotPolicy = "the spot policy and the scheduler that applies it, which are not built yet"
)

// notYet declares a tool whose schema is the contract but whose behaviour belongs to a part of
// Zimmer that does not exist yet: every call answers an isError naming what is missing, and
// the description says so up front so a model does not plan around it.
func notYet(d *toolDef, needs string) *toolDef {
	note := " Not available on this deployment yet: it needs " + needs + "."
	run := func(context.Context, *call) (string, error) { return "", unavailable(d.name, needs) }
	d.full.description += note
	d.full.run = run
	for c, v := range d.overrides {
		if v.run == nil {
			v.run = run
			v.description += note
			d.overrides[c] = v
		}
	}
	return d
}

// paging are the page/per_page arguments every listing takes.
func paging(f fields) fields {
	f["page"] = integer("Page number (default 1).").min(1)
	f["per_page"] = integer("Results per page (default 25, at most 100).").min(1).max(100)
	return f
}
