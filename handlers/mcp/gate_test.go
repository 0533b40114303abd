package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func gateURL(id int64) string {
	return fmt.Sprintf("/mcp?tool_groups=gate_decisions&session_id=%d", id)
}

func TestRecordGateDecisionNeverStoresHumanFeedback(t *testing.T) {
	t.Parallel()
	e := setup(t)
	gate := e.fixture(t, func(s *session.Session) { s.Metadata = map[string]any{"agent_root_key": "gate-root"} })
	about := e.fixture(t, nil)
	surface := graphtest.Unique(t, "surface")
	cases := []struct {
		name    string
		args    map[string]any
		dropped string
	}{
		{"top level", map[string]any{"human_feedback": "FORGED-TOP"}, "(at human_feedback)"},
		{"nested", map[string]any{"details": map[string]any{"review": map[string]any{"human_feedback": "FORGED-NESTED", "score": 2}}},
			"(at details.review.human_feedback)"},
		{"in a list and at the top", map[string]any{"Human_Feedback": "FORGED-CASE", "details": map[string]any{"rounds": []any{map[string]any{"human_feedback": "FORGED-LIST"}}}},
			"(at Human_Feedback, details.rounds[0].human_feedback)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"surface": surface, "decision": "hold", "rationale": "tests are red", "session_id": about.ID}
			for k, v := range c.args {
				args[k] = v
			}
			text := e.ok(t, gateURL(gate.ID), "record_gate_decision", args)
			contains(t, text, "## Gate Decision Recorded", "- **Decision:** hold", fmt.Sprintf("- **Session:** #%d", about.ID),
				fmt.Sprintf("- **Recorded by:** session #%d (agent root gate-root)", gate.ID),
				"⚠️ human_feedback was dropped from what you sent "+c.dropped+" and none of it was stored")
		})
	}
	list, total, err := e.ops.SearchGateDecisions(context.Background(), orchestrator.GateSearch{Surface: surface, PerPage: 100})
	if err != nil || total != len(cases) {
		t.Fatalf("%d stored, %v", total, err)
	}
	for _, d := range list {
		if d.HumanFeedback != "" || strings.Contains(fmt.Sprint(d.Details), "FORGED") {
			t.Fatalf("an agent's human_feedback was stored: %+v", d)
		}
	}
	if _, n, _ := e.ops.SearchGateDecisions(context.Background(), orchestrator.GateSearch{Text: "forged", PerPage: 1}); n != 0 {
		t.Fatalf("the forged text is somewhere in the ledger: %d decisions", n)
	}
	clean := e.ok(t, gateURL(gate.ID), "record_gate_decision", map[string]any{"surface": surface, "decision": "pass"})
	contains(t, clean, "human_feedback is never written from here: only a human writes it, in the browser.")
}

func TestRecordGateDecisionRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	path := "/mcp?tool_groups=gate_decisions"
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no surface", map[string]any{"decision": "hold"}, "Missing required arguments: surface"},
		{"a blank decision", map[string]any{"surface": "s", "decision": "  "}, "Validation failed: decision can't be blank"},
		{"an unknown session", map[string]any{"surface": "s", "decision": "hold", "session_id": "no-such-session-slug"}, "Session not found: no-such-session-slug"},
		{"details not an object", map[string]any{"surface": "s", "decision": "hold", "details": "x"}, "Invalid arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { e.refused(t, path, "record_gate_decision", c.args, c.want) })
	}
}

func TestSearchGateDecisionsFindsTheLastHoldsOnASurface(t *testing.T) {
	t.Parallel()
	e := setup(t)
	surface := graphtest.Unique(t, "surface")
	path := "/mcp?tool_groups=gate_decisions_readonly,gate_decisions"
	for i, d := range []string{"hold", "pass", "hold", "hold"} {
		e.ok(t, path, "record_gate_decision", map[string]any{"surface": surface, "decision": d, "rationale": fmt.Sprintf("round %d", i)})
	}
	text := e.ok(t, path, "search_gate_decisions", map[string]any{"surface": surface, "decision": "hold", "limit": 2})
	contains(t, text, "## Gate Decisions (3 total, page 1 of 2)", "- **Rationale:** round 3", "- **Rationale:** round 2",
		"*More decisions available. Use page=2 to see the next page.*")
	if strings.Contains(text, "round 0") || strings.Index(text, "round 3") > strings.Index(text, "round 2") {
		t.Fatalf("newest first, limited:\n%s", text)
	}
	contains(t, e.ok(t, path, "search_gate_decisions", map[string]any{"surface": surface, "query": "ROUND 1"}),
		"(1 total, page 1 of 1)", "pass on", "- **Rationale:** round 1")
	contains(t, e.ok(t, path, "search_gate_decisions", map[string]any{"surface": surface, "query": "nothing like it"}),
		"(0 total, page 1 of 1)", "No gate decision matches.")
}

func TestGetGateDecisionFeedbackReadsWhatTheHumanWrote(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	surface := graphtest.Unique(t, "surface")
	path := "/mcp?tool_groups=gate_decisions"
	rec := func(decision string) session.GateDecision {
		out, err := e.ops.RecordGateDecision(ctx, orchestrator.GateRecord{Surface: surface, Decision: decision})
		if err != nil {
			t.Fatal(err)
		}
		return out.Decision
	}
	corrected, plain := rec("hold"), rec("pass")
	if _, err := e.ops.SetGateFeedback(ctx, corrected.ID, "This should have passed: the red test was a known flake."); err != nil {
		t.Fatal(err)
	}
	text := e.ok(t, path, "get_gate_decision_feedback", map[string]any{"surface": surface})
	contains(t, text, "## Gate Decision Feedback (1 total, page 1 of 1)", fmt.Sprintf("### #%d · hold on %s", corrected.ID, surface),
		"- **Human feedback:** This should have passed: the red test was a known flake.", "- **Feedback by:** tadasant at ")
	contains(t, e.ok(t, path, "get_gate_decision_feedback", map[string]any{"decision_id": plain.ID}),
		fmt.Sprintf("Decision #%d (pass on %s) has no human feedback yet.", plain.ID, surface))
	e.refused(t, path, "get_gate_decision_feedback", map[string]any{"decision_id": 999999999}, "Not found: gate decision #999999999")
}
