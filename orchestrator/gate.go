package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// The gate decision ledger: gate roots record their ratings and read past ones to calibrate;
// a human corrects them on the web page. Nothing an agent sends can carry human_feedback.

// ErrGateDecisionNotFound is an unknown gate decision id; it is also ErrNotFound.
var ErrGateDecisionNotFound = fmt.Errorf("gate decision %w", ErrNotFound)

// GateRecord is a decision as an agent sends it. Extra is every other top-level argument the
// agent sent, kept only to find a human_feedback there and drop it.
type GateRecord struct {
	Surface, Decision, Rationale string
	Details                      map[string]any
	Extra                        map[string]any
	SessionID, RecordedBy        *int64
	RecordedByRoot               string
}

// GateRecorded is a stored decision and the human_feedback paths dropped from what was sent.
type GateRecorded struct {
	Decision session.GateDecision
	Dropped  []string
}

// RecordGateDecision stores an agent's decision with every human_feedback scrubbed out of it.
func (s *Service) RecordGateDecision(ctx context.Context, r GateRecord) (GateRecorded, error) {
	var p problems
	surface, decision := strings.TrimSpace(r.Surface), strings.TrimSpace(r.Decision)
	for _, f := range [][2]string{{"surface", surface}, {"decision", decision}} {
		switch {
		case f[1] == "":
			p.add(f[0] + " can't be blank")
		case len(f[1]) > session.MaxGateField:
			p.add(fmt.Sprintf("%s is too long (maximum is %d characters)", f[0], session.MaxGateField))
		}
	}
	if len(r.Rationale) > session.MaxGateRationale {
		p.add(fmt.Sprintf("rationale is too long (maximum is %d characters)", session.MaxGateRationale))
	}
	if err := p.err("Validation failed"); err != nil {
		return GateRecorded{}, err
	}
	_, dropped := session.ScrubHumanFeedback(r.Extra)
	details, nested := session.ScrubHumanFeedback(r.Details)
	for _, path := range nested {
		dropped = append(dropped, "details."+path)
	}
	d := session.GateDecision{Surface: surface, Decision: decision, Rationale: strings.TrimSpace(r.Rationale),
		SessionID: r.SessionID, RecordedBy: r.RecordedBy, RecordedByRoot: r.RecordedByRoot}
	if m, ok := details.(map[string]any); ok && len(m) > 0 {
		d.Details = m
	}
	stored, err := s.store.InsertGateDecision(ctx, d)
	if err != nil {
		return GateRecorded{}, err
	}
	return GateRecorded{Decision: stored, Dropped: dropped}, nil
}

// GateSearch filters the ledger; zero fields match everything. Page is 1-based.
type GateSearch struct {
	ID                      int64
	Surface, Decision, Text string
	WithFeedback            bool
	Page, PerPage           int
}

// SearchGateDecisions reads one page of decisions, newest first, and the total that match.
func (s *Service) SearchGateDecisions(ctx context.Context, q GateSearch) ([]session.GateDecision, int, error) {
	page, per := max(q.Page, 1), min(max(q.PerPage, 1), 100)
	return s.store.SearchGateDecisions(ctx, graph.GateQuery{ID: q.ID, Surface: strings.TrimSpace(q.Surface),
		Decision: strings.TrimSpace(q.Decision), Query: strings.ToLower(strings.TrimSpace(q.Text)),
		WithFeedback: q.WithFeedback, Offset: (page - 1) * per, Limit: per})
}

// GateDecision reads one decision.
func (s *Service) GateDecision(ctx context.Context, id int64) (session.GateDecision, error) {
	list, _, err := s.store.SearchGateDecisions(ctx, graph.GateQuery{ID: id, Limit: 1})
	if err != nil {
		return session.GateDecision{}, err
	}
	if len(list) == 0 {
		return session.GateDecision{}, &NotFoundError{Message: fmt.Sprintf("gate decision #%d", id), Kind: ErrGateDecisionNotFound}
	}
	return list[0], nil
}

// SetGateFeedback records the human's correction of a decision. Only the web page calls it:
// the browser is the one write path for human feedback.
func (s *Service) SetGateFeedback(ctx context.Context, id int64, feedback string) (session.GateDecision, error) {
	feedback = strings.TrimSpace(feedback)
	switch {
	case feedback == "":
		return session.GateDecision{}, invalid("Validation failed", "feedback can't be blank")
	case len(feedback) > session.MaxGateFeedback:
		return session.GateDecision{}, invalid("Validation failed", fmt.Sprintf("feedback is too long (maximum is %d characters)", session.MaxGateFeedback))
	}
	d, err := s.store.SetGateFeedback(ctx, id, feedback, s.admin)
	if errors.Is(err, graph.ErrNotFound) {
		return d, &NotFoundError{Message: fmt.Sprintf("gate decision #%d", id), Kind: ErrGateDecisionNotFound}
	}
	return d, err
}
