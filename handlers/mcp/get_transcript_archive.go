package mcp

func getTranscriptArchiveTool() *toolDef {
	return notYet(&toolDef{name: "get_transcript_archive", group: groupSessions, full: variant{
		description: "Where to download the bulk transcript archive (every session's transcript, rebuilt every 10 minutes): " +
			"its size, session count, age and a curl command. A bulk export, not a search — use quick_search_sessions " +
			"with search_contents: true to find a session by something said in it.",
		schema: newSchema(fields{}),
	}}, "the transcript archive builder, which is not built yet")
}
