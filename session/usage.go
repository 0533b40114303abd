package session

import "time"

// TokenUsage is one model request in the ledger (reference §1.7); volumes are stored, prices
// are applied on read.
type TokenUsage struct {
	RequestID           string
	Model               string
	AgentRuntime        string
	AgentRoot           string
	RuntimeSessionID    string
	TranscriptPath      string
	CalledAt            time.Time
	InputTokens         int64
	OutputTokens        int64
	CacheReadTokens     int64
	CacheCreationTokens int64
}
