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

// StalePendingDispatches finds sessions whose delivery's job may be lost.
//
//go:embed stale_pending_dispatches.cypher
var StalePendingDispatches string

// StalePendingEffects finds sessions whose transition effects' task may be lost.
//
//go:embed stale_pending_effects.cypher
var StalePendingEffects string

// IdleSessionsWithQueuedMessages finds idle sessions whose queue the sweep drains.
//
//go:embed idle_sessions_with_queued_messages.cypher
var IdleSessionsWithQueuedMessages string
