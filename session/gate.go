package session

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// GateDecision is one rating a gate root recorded in the ledger, with the human's correction
// of it when there is one. HumanFeedback is written only from the browser: every agent write
// passes through ScrubHumanFeedback first.
type GateDecision struct {
	ID        int64
	Surface   string
	Decision  string
	Rationale string
	Details   map[string]any
	// SessionID is the session the decision is about; RecordedBy the session that recorded it
	// (from its connection) and RecordedByRoot that session's agent root.
	SessionID      *int64
	RecordedBy     *int64
	RecordedByRoot string
	CreatedAt      time.Time
	HumanFeedback  string
	FeedbackBy     string
	FeedbackAt     *time.Time
}

// HumanFeedbackKey is the key no agent may write, at any depth of anything it records.
const HumanFeedbackKey = "human_feedback"

// Limits of a gate decision.
const (
	MaxGateField     = 200 // surface, decision
	MaxGateRationale = 20000
	MaxGateFeedback  = 20000
)

// ScrubHumanFeedback returns v without any human_feedback key (matched case-insensitively, at
// any depth of nested objects and lists) and the paths it dropped, sorted. v is not changed.
func ScrubHumanFeedback(v any) (any, []string) {
	var dropped []string
	out := scrub(v, "", &dropped)
	slices.Sort(dropped)
	return out, dropped
}

func scrub(v any, path string, dropped *[]string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if strings.EqualFold(strings.TrimSpace(k), HumanFeedbackKey) {
				*dropped = append(*dropped, p)
				continue
			}
			out[k] = scrub(val, p, dropped)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = scrub(val, fmt.Sprintf("%s[%d]", path, i), dropped)
		}
		return out
	}
	return v
}
