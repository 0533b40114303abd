package session

import "time"

// Subagent-transcript statuses.
const (
	SubagentRunning   = "running"
	SubagentCompleted = "completed"
	SubagentFailed    = "failed"
)

// SubagentStatuses are the statuses a subagent transcript may carry.
var SubagentStatuses = []string{SubagentRunning, SubagentCompleted, SubagentFailed}

// SubagentTranscript is the record of one sub-agent a session's agent spawned (a Claude Task
// tool call): agent_id names it, unique within its session. Transcript, the agent's own JSONL
// (stored redacted), is read only when asked for.
type SubagentTranscript struct {
	ID, SessionID                                          int64
	AgentID                                                string
	ToolUseID, Filename, SubagentType, Description, Status *string
	MessageCount, DurationMS, TotalTokens, ToolUseCount    *int64
	Transcript                                             *string
	CreatedAt, UpdatedAt                                   time.Time
}
