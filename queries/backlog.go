package queries

import _ "embed" // the statements below are embedded strings

// The work-backlog statements: the ranked queue of cleared issues that become unattended
// implementing sessions.

// LockBacklog serialises work-backlog writes.
//
//go:embed lock_backlog.cypher
var LockBacklog string

// BacklogQueue reads the queued items in rank order.
//
//go:embed backlog_queue.cypher
var BacklogQueue string

// BacklogHistory reads the items that left the queue.
//
//go:embed backlog_history.cypher
var BacklogHistory string

// GetBacklogItem reads one item.
//
//go:embed get_backlog_item.cypher
var GetBacklogItem string

// InsertBacklogItem creates an item.
//
//go:embed insert_backlog_item.cypher
var InsertBacklogItem string

// WriteBacklogItems stores items' properties.
//
//go:embed write_backlog_items.cypher
var WriteBacklogItems string

// LiveBacklogSessions counts the unattended job's live sessions.
//
//go:embed live_backlog_sessions.cypher
var LiveBacklogSessions string
