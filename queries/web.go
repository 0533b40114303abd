package queries

import _ "embed" // the statement below is an embedded string

// The web UI's statements.

// WebChangeVersion fingerprints what the live pages show.
//
//go:embed web_change_version.cypher
var WebChangeVersion string

// WebRecentLogs reads the end of a session's timeline.
//
//go:embed web_recent_logs.cypher
var WebRecentLogs string

// WebUsageTotals sums a session's token ledger.
//
//go:embed web_usage_totals.cypher
var WebUsageTotals string
