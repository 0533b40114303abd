// Package transcript reads the JSONL an agent CLI prints (Claude's stream-json, Codex's
// exec --json, Pi's --mode json) plus the turn markers Zimmer writes between turns: the token
// usage each model request reports, the conversation id a runtime mints itself, and a plain
// text rendering for humans. It reads and writes no files itself; Path says where one lives.
package transcript

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// TurnMarkerType is the "type" of the line Zimmer writes before each turn's output.
const TurnMarkerType = "zimmer_turn"

// TurnMarker opens one turn in a transcript file: what was sent and why.
type TurnMarker struct {
	Type      string    `json:"type"` // TurnMarkerType
	Turn      int       `json:"turn"`
	Reason    string    `json:"reason"`
	Runtime   string    `json:"runtime"`
	Resume    bool      `json:"resume"`
	Prompt    string    `json:"prompt"`
	StartedAt time.Time `json:"started_at"`
}

// Usage is one model request's token counts: one row of the ledger. At is the request's own
// time when the line carries one (zero otherwise).
type Usage struct {
	RequestID   string
	Model       string
	ServiceTier string
	At          time.Time
	session.TokenCounts
}

// Event is what one line says that Zimmer records; a line that is not JSON says nothing.
type Event struct {
	Usage *Usage
	// ThreadID is a conversation id the runtime announced (Codex mints its own).
	ThreadID string
	// Error is the failure the line reports in the runtime's own words (see Diagnose).
	Error string
	// MCP are the MCP servers' connection states the line reports.
	MCP []MCPStatus
	// TurnAt is when the turn this line opens started (a turn marker's started_at).
	TurnAt time.Time
}

// Parse reads one line. line is its 1-based number in the file, from which a request id is
// derived when the runtime reports usage without one (Codex), so re-reading the same file
// yields the same ids and the ledger stays idempotent.
func Parse(sessionID int64, line int, raw []byte) Event {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return Event{}
	}
	var ev Event
	switch t, _ := m["type"].(string); t {
	case "thread.started":
		ev.ThreadID, _ = m["thread_id"].(string)
	case TurnMarkerType:
		if at, ok := m["started_at"].(string); ok {
			ev.TurnAt, _ = time.Parse(time.RFC3339Nano, at)
		}
	}
	ev.Usage = usageOf(m, sessionID, line)
	ev.MCP = mcpStatuses(m)
	if len(ev.MCP) == 0 { // a server that did not start is not the turn's trouble
		ev.Error = errorText(m)
	}
	return ev
}

// usageOf finds a usage object on the event or on its message. Claude's final "result" line
// repeats the turn's totals and is skipped so nothing is counted twice.
func usageOf(m map[string]any, sessionID int64, line int) *Usage {
	if t, _ := m["type"].(string); t == "result" || t == TurnMarkerType {
		return nil
	}
	msg, _ := m["message"].(map[string]any)
	u, ok := m["usage"].(map[string]any)
	if !ok && msg != nil {
		u, ok = msg["usage"].(map[string]any)
	}
	if !ok {
		return nil
	}
	split, _ := u["cache_creation"].(map[string]any)
	server, _ := u["server_tool_use"].(map[string]any)
	out := &Usage{
		TokenCounts: session.TokenCounts{
			InputTokens:           count(u, "input_tokens", "input", "prompt_tokens"),
			OutputTokens:          count(u, "output_tokens", "output", "completion_tokens"),
			CacheReadTokens:       count(u, "cache_read_input_tokens", "cached_input_tokens", "cacheRead"),
			CacheCreationTokens:   count(u, "cache_creation_input_tokens", "cacheWrite"),
			CacheCreation5mTokens: count(split, "ephemeral_5m_input_tokens"),
			CacheCreation1hTokens: count(split, "ephemeral_1h_input_tokens"),
			WebSearchRequests:     count(server, "web_search_requests"),
			WebFetchRequests:      count(server, "web_fetch_requests"),
		},
		Model:       firstString(m, msg, "model"),
		ServiceTier: firstString(u, nil, "service_tier"),
		RequestID:   firstString(m, nil, "requestId", "request_id"),
		At:          stamp(m, msg),
	}
	if out.RequestID == "" {
		out.RequestID = firstString(msg, nil, "id")
	}
	if out.RequestID == "" {
		out.RequestID = "session-" + strconv.FormatInt(sessionID, 10) + "-line-" + strconv.Itoa(line)
	}
	return out
}

// stamp is the line's own time: an RFC 3339 "timestamp" (Claude's transcripts) or one in Unix
// milliseconds (Pi's messages), on the line or on its message.
func stamp(m, msg map[string]any) time.Time {
	for _, src := range []map[string]any{m, msg} {
		switch v := src["timestamp"].(type) {
		case string:
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t.UTC()
			}
		case float64:
			if v > 0 {
				return time.UnixMilli(int64(v)).UTC()
			}
		}
	}
	return time.Time{}
}

func count(u map[string]any, keys ...string) int64 {
	for _, k := range keys {
		if v, ok := u[k].(float64); ok {
			return int64(v)
		}
	}
	return 0
}

// firstString is the first non-empty string under any of keys, on a then on b.
func firstString(a, b map[string]any, keys ...string) string {
	for _, m := range []map[string]any{a, b} {
		for _, k := range keys {
			if s, _ := m[k].(string); s != "" {
				return s
			}
		}
	}
	return ""
}

// Path is where a session's transcript lives under the data directory (ZIMMER_DATA_DIR). It is
// always derived, never read back from the session: a stored path is only a record.
func Path(dataDir string, sessionID int64) string {
	return filepath.Join(dataDir, "transcripts", strconv.FormatInt(sessionID, 10)+".jsonl")
}

// MaxLine is the longest agent output line a transcript keeps; a longer one is replaced by a Cut.
const MaxLine = 1 << 20

// CutType is the "type" of the line that stands for output Zimmer did not keep.
const CutType = "zimmer_cut"

// Cut stands in a transcript for output left out: an agent line longer than MaxLine (Head is
// its start), or, at the top of a windowed read, the lines before the window.
type Cut struct {
	Type   string `json:"type"` // CutType
	Reason string `json:"reason"`
	Bytes  int64  `json:"bytes"` // how much was left out
	Head   string `json:"head,omitempty"`
}

// Cut reasons.
const (
	CutLongLine = "line_too_long"
	CutWindow   = "before_window"
)
