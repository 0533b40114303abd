package queries

import _ "embed" // the statements below are embedded strings

// The session runner's statements: the token-usage ledger and the orphan sweep's reads.

// RecordTokenUsage upserts ledger rows by request id.
//
//go:embed record_token_usage.cypher
var RecordTokenUsage string

// SessionTokenUsage reads a session's ledger.
//
//go:embed session_token_usage.cypher
var SessionTokenUsage string

// StaleRunningSessions finds running sessions untouched since a time.
//
//go:embed stale_running_sessions.cypher
var StaleRunningSessions string

// RecoveryParkedSessions finds sessions parked for recovery.
//
//go:embed recovery_parked_sessions.cypher
var RecoveryParkedSessions string

// StaleWaitingStarts finds waiting sessions whose first run may be lost.
//
//go:embed stale_waiting_starts.cypher
var StaleWaitingStarts string
