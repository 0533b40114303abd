package queries

import _ "embed" // the statements below are embedded strings

// The status summaries' and the fleet-wide refresh's statements.

// GetStatusSummary reads a session's status summary.
//
//go:embed get_status_summary.cypher
var GetStatusSummary string

// SaveStatusSummary writes a session's status summary.
//
//go:embed save_status_summary.cypher
var SaveStatusSummary string

// FleetSessions lists the sessions refresh_all walks.
//
//go:embed fleet_sessions.cypher
var FleetSessions string
