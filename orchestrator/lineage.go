package orchestrator

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// UncleOutcome is what RecordUncle decided; the names are the contract of the decision table.
type UncleOutcome string

// Outcomes of RecordUncle.
const (
	UncleNoActor  UncleOutcome = "no_actor_declared"
	UncleSelf     UncleOutcome = "self"
	UncleAlready  UncleOutcome = "already_senior"
	UncleInverted UncleOutcome = "inverted"
	UncleCycle    UncleOutcome = "would_create_cycle"
	UncleCreated  UncleOutcome = "created"
	UncleError    UncleOutcome = "error"
)

// RecordUncle records that the session named by acting (a self-declared acting_session_id, raw
// text; digits only) queued or interrupted juniorID. It never fails the delivery it records:
// problems become the "error" outcome and a logged warning.
func (s *Service) RecordUncle(ctx context.Context, juniorID int64, acting, source string) UncleOutcome {
	return s.recordUncle(ctx, juniorID, acting, source)
}

func (s *Service) recordUncle(ctx context.Context, juniorID int64, acting, source string) UncleOutcome {
	out := s.decideUncle(ctx, juniorID, acting, source)
	s.obs.ObserveUncleEdge(string(out))
	return out
}

func (s *Service) decideUncle(ctx context.Context, juniorID int64, acting, source string) UncleOutcome {
	actor, ok := session.ParseID(acting)
	if !ok {
		return UncleNoActor
	}
	res, err := s.store.RecordUncleEdge(ctx, actor, juniorID, source)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Could not record #%d → #%d: %v", actor, juniorID, err), "session_id", juniorID)
		return UncleError
	}
	var line string
	switch res {
	case graph.UncleCreated:
		line = fmt.Sprintf("Uncle edge recorded: session #%d queued or interrupted session #%d, so #%d is now linked as an additional senior of #%d (%s)",
			actor, juniorID, actor, juniorID, source)
	case graph.UncleInverted:
		line = fmt.Sprintf("Seniority inverted: #%d was senior to #%d, which has now queued or interrupted it, so the uncle edge #%d → #%d was replaced by #%d → #%d (%s)",
			juniorID, actor, juniorID, actor, actor, juniorID, source)
	}
	if line != "" {
		if _, err := s.store.AppendLog(ctx, graph.LogInfo, line, actor, juniorID); err != nil {
			s.log.Warn("uncle edge recorded but its timeline lines were not", "session_id", juniorID, "err", err)
		}
	}
	return UncleOutcome(res)
}
