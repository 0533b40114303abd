package queries

import _ "embed" // the statements below are embedded strings

// The enqueued-message statements, bound here rather than in queries.go so the queue's
// statements read together.

// NextMessageID hands out enqueued-message ids.
//
//go:embed next_message_id.cypher
var NextMessageID string

// InsertMessage appends a message to a session's queue.
//
//go:embed insert_message.cypher
var InsertMessage string

// ListMessages pages through a session's queue.
//
//go:embed list_messages.cypher
var ListMessages string

// GetMessage reads one message.
//
//go:embed get_message.cypher
var GetMessage string

// UpdateMessage replaces a message's content and goal.
//
//go:embed update_message.cypher
var UpdateMessage string

// SetMessageStatus moves a message to another status.
//
//go:embed set_message_status.cypher
var SetMessageStatus string

// DeleteMessage removes a message and renumbers the tail.
//
//go:embed delete_message.cypher
var DeleteMessage string

// MoveMessage reorders a message within its queue.
//
//go:embed move_message.cypher
var MoveMessage string

// ClaimNextMessage claims the first pending message.
//
//go:embed claim_next_message.cypher
var ClaimNextMessage string

// RetirePendingMessages marks pending messages undelivered.
//
//go:embed retire_pending_messages.cypher
var RetirePendingMessages string
