package mcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

func segment(trigger, outcome string, children ...any) map[string]any {
	return map[string]any{"trigger": map[string]any{"kind": trigger, "source": "user"},
		"goal":    map[string]any{"text": "ship it", "kind": "Action"},
		"outcome": map[string]any{"kind": outcome, "explanation": "it went " + outcome}, "children": children}
}

func TestSaveOutcomeAnalysisReceiptsAndSupersedes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	analysed := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	analyzer := e.fixture(t, nil)
	tree := segment("New", "Failure", segment("New", "Success"), segment("Correction", "Failure", segment("New", "Success")))
	text := e.ok(t, "/mcp", "save_outcome_analysis", map[string]any{"session_id": analysed.ID, "analyzer_session_id": analyzer.ID, "root": tree})
	contains(t, text, "## Outcome analysis saved", fmt.Sprintf("- **Session:** #%d", analysed.ID), "- **Root outcome:** Failure",
		"- **Segments:** 4 (2 Failure, 2 Success)", "- **Max depth:** 2", fmt.Sprintf("/api/v1/outcome_analyses/%d", analysed.ID))
	if strings.Contains(text, "superseded") {
		t.Fatalf("a first analysis supersedes nothing:\n%s", text)
	}
	again := e.ok(t, "/mcp", "save_outcome_analysis", map[string]any{"session_id": analysed.ID, "analyzer_session_id": 999999999, "root": segment("New", "Success")})
	contains(t, again, "- **Segments:** 1 (0 Failure, 1 Success)", "*This superseded the previous analysis of this session.*")
	a, err := e.ops.OutcomeAnalysisOf(t.Context(), analysed.ID)
	if err != nil || a.AnalyzerID != nil || a.Root.Outcome.Kind != "Success" {
		t.Fatalf("the current analysis is the re-save, its unknown analyzer dropped: %+v %v", a, err)
	}
}

func TestSaveOutcomeAnalysisRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	archived := e.fixture(t, func(s *session.Session) { s.Status = session.StatusArchived })
	live := e.fixture(t, nil)
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a live session", map[string]any{"session_id": live.ID, "root": segment("New", "Success")},
			fmt.Sprintf("Validation failed: only an archived session can be analysed: session #%d is waiting", live.ID)},
		{"a bad tree, every problem listed", map[string]any{"session_id": archived.ID, "root": segment("New", "Maybe", segment("Correction", "Success"))},
			"The Segment tree was rejected and nothing was saved. Fix these and call again:\n" +
				"  - S0: outcome.kind must be one of Success, Failure (got \"Maybe\")\n" +
				"  - S0.0: the first child of a segment cannot be a Correction"},
		{"another schema version", map[string]any{"session_id": archived.ID, "schema_version": "2", "root": segment("New", "Success")},
			`schema_version must be "1" (got "2")`},
		{"an unknown session", map[string]any{"session_id": "no-such-slug-here", "root": segment("New", "Success")}, "Session not found: no-such-slug-here"},
		{"no root", map[string]any{"session_id": archived.ID}, "Missing required arguments: root"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { e.refused(t, "/mcp", "save_outcome_analysis", c.args, c.want) })
	}
	if _, err := e.ops.OutcomeAnalysisOf(t.Context(), archived.ID); err == nil {
		t.Fatal("a refused save stored an analysis")
	}
}
