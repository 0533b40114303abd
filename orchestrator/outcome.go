package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// TreeRejected is the label of the ValidationError a malformed segment tree is refused with;
// its messages are every problem found, each naming the segment.
const TreeRejected = "The Segment tree was rejected and nothing was saved"

// OutcomeSave is an analysis as a caller sends it.
type OutcomeSave struct {
	SessionID     int64
	AnalyzerID    *int64
	SchemaVersion string
	Root          map[string]any
	Notes         *string
}

// OutcomeSaved is a stored analysis and whether it superseded the session's previous one.
type OutcomeSaved struct {
	Analysis   session.OutcomeAnalysis
	Superseded bool
}

// SaveOutcomeAnalysis validates the whole tree and stores it as the archived session's current
// analysis. An analyzer session that does not exist is dropped, not refused.
func (s *Service) SaveOutcomeAnalysis(ctx context.Context, o OutcomeSave) (OutcomeSaved, error) {
	sess, err := s.store.GetSession(ctx, o.SessionID)
	if err != nil {
		return OutcomeSaved{}, err
	}
	var p problems
	if sess.Status != session.StatusArchived {
		p.add(fmt.Sprintf("only an archived session can be analysed: session #%d is %s", sess.ID, sess.Status))
	}
	version := o.SchemaVersion
	if version == "" {
		version = session.OutcomeSchemaVersion
	}
	if version != session.OutcomeSchemaVersion {
		p.add(fmt.Sprintf("schema_version must be %q (got %q)", session.OutcomeSchemaVersion, version))
	}
	if o.Notes != nil && len(*o.Notes) > session.MaxAnalysisNotes {
		p.add(fmt.Sprintf("notes is too long (maximum is %d characters)", session.MaxAnalysisNotes))
	}
	if o.Root == nil {
		p.add("root is required: the root Segment")
	}
	if err := p.err("Validation failed"); err != nil {
		return OutcomeSaved{}, err
	}
	root, bad := session.ParseSegmentTree(o.Root)
	if len(bad) > 0 {
		return OutcomeSaved{}, invalid(TreeRejected, bad...)
	}
	a := session.OutcomeAnalysis{SessionID: sess.ID, SchemaVersion: version, Root: root, Notes: blankToNil(o.Notes),
		AgentRoot: sess.AgentRoot(), AgentRuntime: sess.AgentRuntime, Model: sess.Model()}
	if o.AnalyzerID != nil {
		if _, err := s.store.GetSession(ctx, *o.AnalyzerID); err == nil {
			a.AnalyzerID = o.AnalyzerID
		} else if !errors.Is(err, graph.ErrNotFound) {
			return OutcomeSaved{}, err
		}
	}
	stored, superseded, err := s.store.SaveOutcomeAnalysis(ctx, a)
	if err != nil {
		return OutcomeSaved{}, err
	}
	return OutcomeSaved{Analysis: stored, Superseded: superseded}, nil
}

// OutcomeListParams filter the list; zero values match everything.
type OutcomeListParams struct {
	From, To                                *time.Time
	AgentRoot, AgentRuntime, Model, Outcome string
}

// maxOutcomeList is the most analyses one list returns.
const maxOutcomeList = 500

// OutcomeAnalyses lists current analyses, newest first.
func (s *Service) OutcomeAnalyses(ctx context.Context, f OutcomeListParams) ([]session.OutcomeAnalysis, error) {
	return s.store.ListOutcomeAnalyses(ctx, graph.OutcomeFilter{From: f.From, To: f.To, AgentRoot: f.AgentRoot,
		AgentRuntime: f.AgentRuntime, Model: f.Model, Outcome: f.Outcome, Limit: maxOutcomeList})
}

// OutcomeAnalysisOf reads a session's current analysis.
func (s *Service) OutcomeAnalysisOf(ctx context.Context, sessionID int64) (session.OutcomeAnalysis, error) {
	a, err := s.store.OutcomeAnalysisOf(ctx, sessionID)
	if errors.Is(err, graph.ErrNotFound) {
		return a, &NotFoundError{Message: fmt.Sprintf("Session #%d has no outcome analysis", sessionID)}
	}
	return a, err
}
