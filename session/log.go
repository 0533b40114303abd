package session

import "time"

// Log levels of a session timeline.
const (
	LogInfo    = "info"
	LogWarning = "warning"
	LogError   = "error"
	LogDebug   = "debug"
	LogVerbose = "verbose"
)

// LogEntry is one line of a session's timeline.
type LogEntry struct {
	ID        string
	SessionID int64
	Level     string
	Content   string
	CreatedAt time.Time
}
