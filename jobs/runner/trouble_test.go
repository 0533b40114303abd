package runner_test

import (
	"context"
	"fmt"
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
		{runtime: "claude_code", prompt: "FAIL overloaded always", failure: runner.FailureAPIRetries, turns: 5},
		{runtime: "claude_code", prompt: "FAIL crash always", failure: runner.FailureSignalDeathRetry, turns: 3},
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.runtime+" "+c.prompt, func(t *testing.T) {
				t.Parallel()
				id, s := e.troubled(t, c.runtime, c.prompt, c.failure != "")
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

// troubled runs a session on the runtime with the prompt until it fails (failed) or comes to
// needs_input.
func (e *env) troubled(t *testing.T, runtime, prompt string, failed bool) (int64, *session.Session) {
	t.Helper()
	id := e.create(t, map[string]any{"prompt": prompt, "agent_runtime": runtime})
	if failed {
		// Failed with its reason: the test then asserts which reason. A session seen failed
		// without one would time out here, its metadata in the message.
		return id, e.waitFor(t, id, "failed with a reason", 60*time.Second, func(s *session.Session) bool {
			return s.Status == session.StatusFailed && s.Metadata[session.MetaFailureReason] != nil
		})
	}
	return id, e.waitFor(t, id, string(session.StatusNeedsInput), 60*time.Second, func(s *session.Session) bool { return s.Status == session.StatusNeedsInput })
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

// A conversation that outgrows the model's context is compacted and goes on: Claude Code runs
// /compact as a resumed turn and then the overflowing prompt again; Codex and Pi start a new
// conversation seeded with the transcript's end and that prompt. Two compactions in a row are
// allowed; the next overflow fails the session with a reason a person can act on.
func TestAnOverflowingConversationIsCompactedAndContinues(t *testing.T) {
	e := shared(t)
	cases := []struct {
		runtime, prompt string
		failed          bool
		prompts         []string // what each turn sent (a prefix), in order
		fresh           []bool   // whether each turn started a new conversation
	}{
		{runtime: "claude_code", prompt: "FAIL context", prompts: []string{"FAIL context", "/compact", "FAIL context"}, fresh: []bool{true, false, false}},
		{runtime: "codex", prompt: "FAIL context", prompts: []string{"FAIL context", "SYSTEM_RECOVERY: this session's earlier conversation"}, fresh: []bool{true, true}},
		{runtime: "pi", prompt: "FAIL context", prompts: []string{"FAIL context", "SYSTEM_RECOVERY: this session's earlier conversation"}, fresh: []bool{true, true}},
		{runtime: "claude_code", prompt: "FAIL context always", failed: true, prompts: []string{"FAIL context", "/compact", "/compact"}, fresh: []bool{true, false, false}},
		{runtime: "codex", prompt: "FAIL context always", failed: true, prompts: []string{"FAIL context", "SYSTEM_RECOVERY", "SYSTEM_RECOVERY"}, fresh: []bool{true, true, true}},
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.runtime+" "+c.prompt, func(t *testing.T) {
				t.Parallel()
				id, s := e.troubled(t, c.runtime, c.prompt, c.failed)
				sent := turns(e.transcript(t, id))
				if len(sent) != len(c.prompts) {
					t.Fatalf("%d turns, want %d: %v", len(sent), len(c.prompts), sent)
				}
				conversations := map[string]bool{}
				for i, turn := range sent {
					if p := turn["prompt"].(string); !strings.HasPrefix(p, c.prompts[i]) {
						t.Errorf("turn %d sent %.200q; want it to start %q", i+1, p, c.prompts[i])
					}
					if turn["resume"] == c.fresh[i] {
						t.Errorf("turn %d resumed=%v; want a new conversation %v", i+1, turn["resume"], c.fresh[i])
					}
				}
				for _, inv := range e.invocations(t, id) {
					conversations[inv["session_id"].(string)] = true
				}
				if fresh := strings.Count(fmt.Sprint(c.fresh), "true"); len(conversations) != fresh {
					t.Errorf("%d conversations, want %d", len(conversations), fresh)
				}
				logs, _ := e.ops.Timeline(context.Background(), id)
				if !slices.ContainsFunc(logs, func(l session.LogEntry) bool { return strings.Contains(l.Content, "outgrew the model's context") }) {
					t.Errorf("the timeline does not say the conversation was compacted: %v", logs)
				}
				if c.failed {
					msg, _ := s.Metadata[session.MetaFailureMessage].(string)
					if s.Metadata[session.MetaFailureReason] != runner.FailureContext || !strings.Contains(msg, "after 2 compactions") || !strings.Contains(msg, "fork the session") {
						t.Fatalf("failure %v: %q", s.Metadata[session.MetaFailureReason], msg)
					}
					return
				}
				if _, left := s.Metadata[session.MetaCompactContinuation]; left {
					t.Errorf("a clean turn clears the continuation: %v", s.Metadata)
				}
				if c.runtime != "claude_code" && !strings.Contains(sent[1]["prompt"].(string), "ack: FAIL context") {
					t.Errorf("the seed carries the end of the transcript: %.500q", sent[1]["prompt"])
				}
			})
		}
	})
	for labels, n := range map[[3]string]float64{{"claude_code", "context", "compact"}: 3, {"codex", "context", "compact"}: 3,
		{"pi", "context", "compact"}: 1, {"claude_code", "context", "fail"}: 1, {"codex", "context", "fail"}: 1} {
		if got := testutil.ToFloat64(e.runs.Troubles.WithLabelValues(labels[:]...)); got < n {
			t.Errorf("zimmer_turn_troubles_total%v = %v; want at least %v", labels, got, n)
		}
	}
}
