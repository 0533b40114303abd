package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func saveOutcomeAnalysisTool() *toolDef {
	return &toolDef{name: "save_outcome_analysis", group: groupSessions, write: true, full: variant{
		description: "Save an outcome analysis of an archived session: a tree of segments, each {trigger: {kind: New|Correction, " +
			"source: user|agent|subagent}, goal: {text, kind: Plan|Action}, outcome: {kind: Success|Failure, explanation " +
			"(at most 140 characters)}, meta, children}; a first child cannot be a Correction. Segment ids are assigned " +
			"by position (S0, S0.0, …). A re-save supersedes the previous analysis; an invalid tree is rejected whole, " +
			"with every problem listed, and nothing is saved.",
		schema: newSchema(fields{
			"session_id":          sessionRef("The analysed (archived) session: id or slug."),
			"analyzer_session_id": integer("The session doing the analysis, if any (an unknown id is dropped).").nullable(),
			"schema_version":      str("The Segment tree's schema version (\"1\")."),
			"root":                object("The root Segment: {trigger, goal, outcome, meta, children}."),
			"notes":               str("Free-text notes on the analysis.").maxLen(session.MaxAnalysisNotes).nullable(),
		}, "session_id", "root"),
		run: runSaveOutcomeAnalysis,
	}}
}

func runSaveOutcomeAnalysis(ctx context.Context, c *call) (string, error) {
	id, err := c.resolve(ctx, c.args.text("session_id"))
	if err != nil {
		return "", err
	}
	out, err := c.h.ops.SaveOutcomeAnalysis(ctx, orchestrator.OutcomeSave{SessionID: id, AnalyzerID: c.args.optInt("analyzer_session_id"),
		SchemaVersion: c.args.text("schema_version"), Root: c.args.object("root"), Notes: c.args.str("notes")})
	var ve *orchestrator.ValidationError
	if errors.As(err, &ve) && ve.Label == orchestrator.TreeRejected {
		return "", fail("%s. Fix these and call again:\n  - %s", orchestrator.TreeRejected, strings.Join(ve.Messages, "\n  - "))
	}
	if err != nil {
		return "", err
	}
	a, st := out.Analysis, out.Analysis.Root.Stats()
	var b doc
	b.heading(2, "Outcome analysis saved")
	b.field("Session", fmt.Sprintf("#%d", a.SessionID))
	b.field("Analysis id", a.ID)
	b.field("Root outcome", a.Root.Outcome.Kind)
	b.field("Segments", fmt.Sprintf("%d (%d Failure, %d Success)", st.Segments, st.Failures, st.Successes))
	b.field("Max depth", st.MaxDepth)
	b.field("View", fmt.Sprintf("%s/api/v1/outcome_analyses/%d", c.base, a.SessionID))
	if out.Superseded {
		b.blank()
		b.line("*This superseded the previous analysis of this session.*")
	}
	return b.String(), nil
}
