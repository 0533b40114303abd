package queries

import _ "embed" // the statements below are embedded strings

// The status summaries' statements.

// GetStatusSummary reads a session's status summary.
//
//go:embed get_status_summary.cypher
var GetStatusSummary string

// SaveStatusSummary writes a session's status summary.
//
//go:embed save_status_summary.cypher
var SaveStatusSummary string
