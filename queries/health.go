package queries

import _ "embed" // the statements below are embedded strings

// The fleet health report's and the health actions' statements.

// SessionsByStatus counts sessions per status.
//
//go:embed sessions_by_status.cypher
var SessionsByStatus string

// RecentFailedSessions finds the failures retry_sessions retries by default.
//
//go:embed recent_failed_sessions.cypher
var RecentFailedSessions string

// UntouchedSessions finds the sessions archive_old archives.
//
//go:embed untouched_sessions.cypher
var UntouchedSessions string

// LeftoverProcesses finds sessions that are not running but record a process on a host.
//
//go:embed leftover_processes.cypher
var LeftoverProcesses string
