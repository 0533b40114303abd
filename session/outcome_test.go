package session_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

func seg(trigger, outcome string, children ...string) string {
	return `{"trigger": {"kind": "` + trigger + `", "source": "user"}, "goal": {"text": "do it", "kind": "Action"},
		"outcome": {"kind": "` + outcome + `", "explanation": "because"}, "children": [` + strings.Join(children, ",") + `]}`
}

func TestParseSegmentTree(t *testing.T) {
	long := strings.Repeat("x", 141)
	cases := []struct {
		name     string
		tree     string
		problems []string
		stats    session.TreeStats
	}{
		{"a valid tree, ids by position", seg("New", "Failure", seg("New", "Success"), seg("Correction", "Success", seg("New", "Success"))), nil,
			session.TreeStats{Segments: 4, Failures: 1, Successes: 3, MaxDepth: 2}},
		{"a first child correction", seg("New", "Success", seg("Correction", "Success")),
			[]string{"S0.0: the first child of a segment cannot be a Correction: a correction corrects something that came before it"}, session.TreeStats{}},
		{"every problem, each named", `{"trigger": {"kind": "Old", "source": "user"}, "goal": {"kind": "Plan"},
			"outcome": {"kind": "Success", "explanation": "` + long + `"}, "children": [{"goal": 3}]}`, []string{
			`S0: trigger.kind must be one of New, Correction (got "Old")`,
			"S0: goal.text is required",
			"S0: outcome.explanation is 141 characters; at most 140",
			"S0.0: trigger is required and must be a JSON object",
			"S0.0: goal is required and must be a JSON object",
			"S0.0: outcome is required and must be a JSON object",
		}, session.TreeStats{}},
		{"children not a list", `{"trigger": {"kind": "New", "source": "agent"}, "goal": {"text": "t", "kind": "Plan"},
			"outcome": {"kind": "Success", "explanation": "e"}, "children": {}}`, []string{"S0: children must be a list of segments"}, session.TreeStats{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var root map[string]any
			if err := json.Unmarshal([]byte(c.tree), &root); err != nil {
				t.Fatal(err)
			}
			tree, problems := session.ParseSegmentTree(root)
			if !slices.Equal(problems, c.problems) {
				t.Fatalf("problems:\n got %q\nwant %q", problems, c.problems)
			}
			if c.problems == nil {
				if st := tree.Stats(); st != c.stats {
					t.Errorf("stats %+v, want %+v", st, c.stats)
				}
				if tree.Children[1].Children[0].ID != "S0.1.0" {
					t.Errorf("positional ids: %q", tree.Children[1].Children[0].ID)
				}
			}
		})
	}
}
