package session

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// OutcomeAnalysis is one analysis of an archived session: a tree of segments, each what
// triggered a stretch of work, its goal and how it turned out. A session has one current
// analysis; saving another supersedes it.
type OutcomeAnalysis struct {
	ID            int64
	SessionID     int64
	AnalyzerID    *int64
	SchemaVersion string
	Root          Segment
	Notes         *string
	// What the list filters on, taken from the analysed session when the analysis is saved.
	AgentRoot, AgentRuntime, Model string
	CreatedAt                      time.Time
}

// Segment is one node of an outcome tree. ID is positional (S0, S0.0, S0.1, …), assigned on
// save whatever the caller sent.
type Segment struct {
	ID       string         `json:"id"`
	Trigger  SegmentTrigger `json:"trigger"`
	Goal     SegmentGoal    `json:"goal"`
	Outcome  SegmentOutcome `json:"outcome"`
	Meta     map[string]any `json:"meta,omitempty"`
	Children []Segment      `json:"children"`
}

// SegmentTrigger is what started a segment.
type SegmentTrigger struct {
	Kind   string `json:"kind"`   // New, Correction
	Source string `json:"source"` // user, agent, subagent
}

// SegmentGoal is what a segment set out to do.
type SegmentGoal struct {
	Text string `json:"text"`
	Kind string `json:"kind"` // Plan, Action
}

// SegmentOutcome is how a segment ended.
type SegmentOutcome struct {
	Kind        string `json:"kind"` // Success, Failure
	Explanation string `json:"explanation"`
}

// The vocabularies and limits of a segment tree.
var (
	TriggerKinds   = []string{"New", "Correction"}
	TriggerSources = []string{"user", "agent", "subagent"}
	GoalKinds      = []string{"Plan", "Action"}
	OutcomeKinds   = []string{"Success", "Failure"}
)

// Limits of an outcome analysis.
const (
	MaxExplanation   = 140
	MaxSegmentGoal   = 5000
	MaxSegmentDepth  = 32
	MaxSegments      = 2000
	MaxAnalysisNotes = 50000
)

// OutcomeSchemaVersion is the segment tree's schema version.
const OutcomeSchemaVersion = "1"

// TreeStats are a tree's counts.
type TreeStats struct {
	Segments, Failures, Successes, MaxDepth int
}

// Stats counts a tree's segments by outcome and its depth (the root is depth 0).
func (s Segment) Stats() TreeStats {
	var st TreeStats
	var walk func(Segment, int)
	walk = func(n Segment, depth int) {
		st.Segments++
		st.MaxDepth = max(st.MaxDepth, depth)
		if n.Outcome.Kind == "Failure" {
			st.Failures++
		} else {
			st.Successes++
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(s, 0)
	return st
}

// ParseSegmentTree reads a segment tree from its JSON form and returns every problem found
// (each naming the segment's positional id); a tree with any problem is not to be saved.
// Keys it does not know are ignored.
func ParseSegmentTree(root map[string]any) (Segment, []string) {
	var problems []string
	count := 0
	var parse func(raw any, id string, depth int, first bool) Segment
	parse = func(raw any, id string, depth int, first bool) Segment {
		seg := Segment{ID: id, Children: []Segment{}}
		count++
		if count > MaxSegments {
			if count == MaxSegments+1 {
				problems = append(problems, fmt.Sprintf("the tree has more than %d segments", MaxSegments))
			}
			return seg
		}
		m, ok := raw.(map[string]any)
		if !ok {
			problems = append(problems, id+": a segment must be a JSON object")
			return seg
		}
		bad := func(format string, a ...any) { problems = append(problems, id+": "+fmt.Sprintf(format, a...)) }
		trig, goal, out := segObject(m, "trigger", bad), segObject(m, "goal", bad), segObject(m, "outcome", bad)
		seg.Trigger = SegmentTrigger{Kind: segOneOf(trig, "trigger.kind", "kind", TriggerKinds, bad), Source: segOneOf(trig, "trigger.source", "source", TriggerSources, bad)}
		seg.Goal = SegmentGoal{Kind: segOneOf(goal, "goal.kind", "kind", GoalKinds, bad), Text: segText(goal, "goal.text", "text", MaxSegmentGoal, bad)}
		seg.Outcome = SegmentOutcome{Kind: segOneOf(out, "outcome.kind", "kind", OutcomeKinds, bad), Explanation: segText(out, "outcome.explanation", "explanation", MaxExplanation, bad)}
		if first && seg.Trigger.Kind == "Correction" {
			bad("the first child of a segment cannot be a Correction: a correction corrects something that came before it")
		}
		if meta, ok := m["meta"]; ok && meta != nil {
			if mm, ok := meta.(map[string]any); ok {
				seg.Meta = mm
			} else {
				bad("meta must be a JSON object")
			}
		}
		kids, ok := m["children"]
		if !ok || kids == nil {
			return seg
		}
		list, ok := kids.([]any)
		if !ok {
			bad("children must be a list of segments")
			return seg
		}
		if len(list) > 0 && depth+1 > MaxSegmentDepth {
			bad("the tree is deeper than %d levels", MaxSegmentDepth)
			return seg
		}
		for i, c := range list {
			seg.Children = append(seg.Children, parse(c, fmt.Sprintf("%s.%d", id, i), depth+1, i == 0))
		}
		return seg
	}
	seg := parse(root, "S0", 0, false)
	return seg, problems
}

func segObject(m map[string]any, key string, bad func(string, ...any)) map[string]any {
	o, ok := m[key].(map[string]any)
	if !ok {
		bad("%s is required and must be a JSON object", key)
	}
	return o
}

func segOneOf(m map[string]any, path, key string, allowed []string, bad func(string, ...any)) string {
	if m == nil {
		return ""
	}
	v, _ := m[key].(string)
	if !slices.Contains(allowed, v) {
		bad("%s must be one of %s (got %s)", path, strings.Join(allowed, ", "), segQuote(m[key]))
	}
	return v
}

func segText(m map[string]any, path, key string, limit int, bad func(string, ...any)) string {
	if m == nil {
		return ""
	}
	v, ok := m[key].(string)
	switch {
	case !ok || strings.TrimSpace(v) == "":
		bad("%s is required", path)
	case len([]rune(v)) > limit:
		bad("%s is %d characters; at most %d", path, len([]rune(v)), limit)
	}
	return v
}

func segQuote(v any) string {
	if v == nil {
		return "nothing"
	}
	return fmt.Sprintf("%#v", v)
}
