package session

import "time"

// TokenCounts are one model request's volumes by kind (reference §1.7). CacheCreationTokens is
// every cache write; the 5-minute and 1-hour counts split it when the runtime reports the split.
type TokenCounts struct {
	InputTokens           int64 `json:"input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	CacheReadTokens       int64 `json:"cache_read_tokens"`
	CacheCreationTokens   int64 `json:"cache_creation_tokens"`
	CacheCreation5mTokens int64 `json:"cache_creation_5m_tokens"`
	CacheCreation1hTokens int64 `json:"cache_creation_1h_tokens"`
	WebSearchRequests     int64 `json:"web_search_requests"`
	WebFetchRequests      int64 `json:"web_fetch_requests"`
}

// Add sums two sets of volumes.
func (c TokenCounts) Add(o TokenCounts) TokenCounts {
	return TokenCounts{InputTokens: c.InputTokens + o.InputTokens, OutputTokens: c.OutputTokens + o.OutputTokens,
		CacheReadTokens: c.CacheReadTokens + o.CacheReadTokens, CacheCreationTokens: c.CacheCreationTokens + o.CacheCreationTokens,
		CacheCreation5mTokens: c.CacheCreation5mTokens + o.CacheCreation5mTokens, CacheCreation1hTokens: c.CacheCreation1hTokens + o.CacheCreation1hTokens,
		WebSearchRequests: c.WebSearchRequests + o.WebSearchRequests, WebFetchRequests: c.WebFetchRequests + o.WebFetchRequests}
}

// Tokens is every token the counts name, of any kind.
func (c TokenCounts) Tokens() int64 {
	return c.InputTokens + c.OutputTokens + c.CacheReadTokens + c.CacheCreationTokens
}

// TokenUsage is one model request in the ledger (reference §1.7); volumes are stored, prices
// are applied on read. CalledAt is when the request was made, from the transcript's own
// timestamp when the line carries one.
type TokenUsage struct {
	RequestID        string    `json:"request_id"`
	SessionID        int64     `json:"session_id"`
	Model            string    `json:"model"`
	AgentRuntime     string    `json:"agent_runtime"`
	AgentRoot        string    `json:"agent_root"`
	RuntimeSessionID string    `json:"runtime_session_id"`
	TranscriptPath   string    `json:"-"` // a path on the worker's disk: not the API's business
	ServiceTier      string    `json:"service_tier"`
	CalledAt         time.Time `json:"called_at"`
	// Stamped says CalledAt is the transcript's own time for the request, not when Zimmer read it.
	Stamped bool `json:"called_at_from_transcript"`
	TokenCounts
}

// UsageTotals is a session's ledger summed: how many model requests, their tokens by kind, and
// the models they went to (sorted).
type UsageTotals struct {
	Requests                                int
	Input, Output, CacheRead, CacheCreation int64
	Models                                  []string
}
