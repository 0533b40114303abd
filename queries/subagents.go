package queries

import _ "embed" // the statements below are embedded strings

// The subagent-transcript statements: the sub-agents a session's agent spawned, one record each.

// InsertSubagentTranscript creates a session's subagent transcript.
//
//go:embed insert_subagent_transcript.cypher
var InsertSubagentTranscript string

// GetSubagentTranscript reads one subagent transcript.
//
//go:embed get_subagent_transcript.cypher
var GetSubagentTranscript string

// ListSubagentTranscripts reads one page of a session's subagent transcripts.
//
//go:embed list_subagent_transcripts.cypher
var ListSubagentTranscripts string

// UpdateSubagentTranscript writes a subagent transcript's sent fields.
//
//go:embed update_subagent_transcript.cypher
var UpdateSubagentTranscript string

// DeleteSubagentTranscript removes one subagent transcript.
//
//go:embed delete_subagent_transcript.cypher
var DeleteSubagentTranscript string
