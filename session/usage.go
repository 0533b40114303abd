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

// UsageTotals is a session's ledger summed: how many model requests, their tokens by kind, and
// the models they went to (sorted).
type UsageTotals struct {
	Requests                                int
	Input, Output, CacheRead, CacheCreation int64
	Models                                  []string
}
