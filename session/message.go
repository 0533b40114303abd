package session

import "time"

// Statuses of an enqueued message. A message is pending until a delivery claims it
// (processing); once the agent job carrying it is queued the row is deleted, as the original
// destroys it after hand-off, so a session's queue holds only what is still to be delivered
// plus the undelivered record a forced archive leaves. MessageDelivered is therefore never
// stored; it names the outcome in logs and metrics.
const (
	MessagePending     = "pending"
	MessageProcessing  = "processing"
	MessageDelivered   = "delivered"
	MessageUndelivered = "undelivered"
)

// Origins of an enqueued message. Requests can only ever produce OriginCaller; the other two
// are notices Zimmer writes itself.
const (
	OriginCaller        = "caller"
	OriginPRMerged      = "automated_pr_merged"
	OriginMergeConflict = "automated_merge_conflict"
)

// Message is one prompt in a session's queue.
type Message struct {
	ID        int64
	SessionID int64
	Content   string
	Goal      *string
	Position  int64 // 1-based and contiguous per session
	Status    string
	Origin    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// NewMessage is what an append stores; Origin defaults to OriginCaller.
type NewMessage struct {
	Content string
	Goal    *string
	Origin  string
}
