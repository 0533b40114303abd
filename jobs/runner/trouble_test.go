package runner_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zimmerhq/zimmer/jobs/runner"
	"github.com/zimmerhq/zimmer/session"
)

// A turn that ends in trouble is acted on by class, with each runtime's real error shapes (the
// fake CLI prints them): passing trouble continues the same conversation at a set time, trouble
// time does not cure fails with a reason a person can act on, and a spent budget fails saying so.
func TestATurnEndingInTroubleIsRetriedOrFailedByItsClass(t *testing.T) {
	e := shared(t)
	cases := []struct {
		runtime, prompt string
		failure         string // "" means the session comes through to needs_input
		turns           int    // agent invocations in all
	}{
		{runtime: "claude_code", prompt: "FAIL overloaded", turns: 2},
		{runtime: "claude_code", prompt: "FAIL rate_limit", turns: 2},
		{runtime: "codex", prompt: "FAIL rate_limit", turns: 2},
		{runtime: "codex", prompt: "FAIL overloaded", turns: 2},
		{runtime: "pi", prompt: "FAIL overloaded", turns: 2},
		{runtime: "pi", prompt: "FAIL rate_limit", turns: 2},
		{runtime: "claude_code", prompt: "FAIL crash", turns: 2},
		{runtime: "claude_code", prompt: "FAIL auth", failure: runner.FailureAuth, turns: 1},
		{runtime: "codex", prompt: "FAIL auth", failure: runner.FailureAuth, turns: 1},
		{runtime: "pi", prompt: "FAIL context", failure: runner.FailureContext, turns: 1},
		{runtime: "codex", prompt: "FAIL context", failure: runner.FailureContext, turns: 1},
		{runtime: "claude_code", prompt: "FAIL overloaded always", failure: runner.FailureAPIRetries, turns: 5},
		{runtime: "claude_code", prompt: "FAIL crash always", failure: runner.FailureSignalDeathRetry, turns: 3},
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.runtime+" "+c.prompt, func(t *testing.T) {
				t.Parallel()
				id := e.create(t, map[string]any{"prompt": c.prompt, "agent_runtime": c.runtime})
				want := session.StatusNeedsInput
				if c.failure != "" {
					want = session.StatusFailed
				}
				s := e.waitFor(t, id, string(want), 60*time.Second, func(s *session.Session) bool { return s.Status == want })
				if got := len(e.invocations(t, id)); got != c.turns {
					t.Fatalf("%d agent turns, want %d", got, c.turns)
				}
				if c.failure != "" {
					if s.Metadata[session.MetaFailureReason] != c.failure {
						t.Fatalf("failure_reason %v (%v), want %s", s.Metadata[session.MetaFailureReason], s.Metadata[session.MetaFailureMessage], c.failure)
					}
					return
				}
				retry := turns(e.transcript(t, id))[1]
				if !strings.Contains(retry["prompt"].(string), "SYSTEM_RECOVERY") || retry["resume"] != true {
					t.Fatalf("the retry continues the conversation with the nudge: %v", retry)
				}
				if _, left := s.Metadata[session.MetaTrouble]; left {
					t.Fatalf("a clean turn clears the trouble: %v", s.Metadata)
				}
				logs, _ := e.ops.Timeline(context.Background(), id)
				if !slices.ContainsFunc(logs, func(l session.LogEntry) bool { return strings.Contains(l.Content, "Continuing at") }) {
					t.Fatalf("the timeline says when the turn continues: %v", logs)
				}
			})
		}
	})
	// Each class is counted per runtime with what was done about it (other tests on the shared
	// worker may add to the counts, never take away).
	want := map[[3]string]float64{}
	for _, c := range cases {
		class := strings.Fields(c.prompt)[1]
		want[[3]string{c.runtime, class, "retry"}] += float64(c.turns - 1)
		if c.failure != "" {
			want[[3]string{c.runtime, class, "fail"}]++
		}
	}
	for labels, n := range want {
		if got := testutil.ToFloat64(e.runs.Troubles.WithLabelValues(labels[:]...)); got < n {
			t.Errorf("zimmer_turn_troubles_total%v = %v; want at least %v", labels, got, n)
		}
	}
}

// While it waits for its retry the session sleeps in waiting, saying why and when.
func TestASessionWaitingOutARateLimitSaysWhenItContinues(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "FAIL rate_limit always", "agent_runtime": "codex"})
	s := e.waitFor(t, id, "waiting for its retry", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusWaiting && s.Metadata[session.MetaTrouble] != nil
	})
	tr := s.Metadata[session.MetaTrouble].(map[string]any)
	if tr["class"] != "rate_limit" || tr["retry_at"] == "" || !strings.Contains(tr["message"].(string), "usage limit") {
		t.Fatalf("trouble: %v", tr)
	}
	if _, pending := s.Metadata[session.MetaPendingDispatch]; !pending || s.RunningJobID != nil {
		t.Fatalf("the retry is a pending dispatch the sweep would queue again: %v", s.Metadata)
	}
}
