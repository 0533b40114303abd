package session_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

func TestScrubHumanFeedbackDropsItAtAnyDepth(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    string
		dropped []string
	}{
		{"top level", `{"human_feedback": "x", "a": 1}`, `{"a":1}`, []string{"human_feedback"}},
		{"nested", `{"review": {"score": 3, "human_feedback": {"by": "me"}}}`, `{"review":{"score":3}}`, []string{"review.human_feedback"}},
		{"in a list", `{"rounds": [{"human_feedback": "x"}, {"ok": true}]}`, `{"rounds":[{},{"ok":true}]}`, []string{"rounds[0].human_feedback"}},
		{"any case, padded", `{"Human_Feedback": 1, " HUMAN_FEEDBACK ": 2}`, `{}`, []string{" HUMAN_FEEDBACK ", "Human_Feedback"}},
		{"a value is not a key", `{"note": "human_feedback"}`, `{"note":"human_feedback"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(c.in), &in); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(in)
			out, dropped := session.ScrubHumanFeedback(in)
			got, _ := json.Marshal(out)
			if string(got) != c.want || !slices.Equal(dropped, c.dropped) {
				t.Fatalf("got %s dropping %q, want %s dropping %q", got, dropped, c.want, c.dropped)
			}
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Fatalf("the input was changed: %s", after)
			}
		})
	}
}
