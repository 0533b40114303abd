package queries

import _ "embed" // the statements below are embedded strings

// TrashDue finds archived sessions past their restore window.
//
//go:embed trash_due.cypher
var TrashDue string

// HeartbeatsDue finds sessions whose heartbeat is due.
//
//go:embed heartbeats_due.cypher
var HeartbeatsDue string
