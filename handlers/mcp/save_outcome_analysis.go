package mcp

func saveOutcomeAnalysisTool() *toolDef {
	return notYet(&toolDef{name: "save_outcome_analysis", group: groupSessions, write: true, full: variant{
		description: "Save an outcome analysis of an archived session: a tree of segments (trigger, goal, outcome with " +
			"a ≤140-character explanation). A re-save supersedes the previous analysis; an invalid tree is rejected " +
			"whole, with every problem listed.",
		schema: newSchema(fields{
			"session_id":          sessionRef("The analysed (archived) session: id or slug."),
			"analyzer_session_id": integer("The session doing the analysis, if any.").nullable(),
			"schema_version":      str("The Segment tree's schema version (\"1\")."),
			"root":                object("The root Segment: {trigger, goal, outcome, meta, children}."),
			"notes":               str("Free-text notes on the analysis.").nullable(),
		}, "session_id", "root"),
	}}, "outcome-analysis storage, which is not built yet")
}
