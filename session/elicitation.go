package session

import "time"

// Elicitation is an MCP server's question for the human, asked over Zimmer's HTTP fallback
// while the session's turn waits (blocked_on_elicitation) for the answer.
type Elicitation struct {
	ID              int64
	RequestID       string
	SessionID       *int64
	Message         string
	RequestedSchema map[string]any
	Mode            string
	Status          ElicitationStatus
	Response        map[string]any // kept only for an accept
	CreatedAt       time.Time
	ExpiresAt       time.Time
	RespondedAt     *time.Time
}

// ElicitationStatus is pending until answered (accept, decline, cancel) or expired.
type ElicitationStatus string

// The statuses of an elicitation; the three answers are also the actions a responder takes.
const (
	ElicitationPending ElicitationStatus = "pending"
	ElicitationAccept  ElicitationStatus = "accept"
	ElicitationDecline ElicitationStatus = "decline"
	ElicitationCancel  ElicitationStatus = "cancel"
	ElicitationExpired ElicitationStatus = "expired"
)

// ElicitationActions are the answers a responder may give.
var ElicitationActions = []string{string(ElicitationAccept), string(ElicitationDecline), string(ElicitationCancel)}

// Elicitation limits.
const (
	DefaultElicitationTTL = time.Hour
	MaxElicitationTTL     = 24 * time.Hour
	MaxElicitationMessage = 20000
	MaxElicitationID      = 200
)
