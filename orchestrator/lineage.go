package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/provenance"
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
	source = sourceWithCredential(ctx, source)
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
		if _, err := s.store.AppendLog(ctx, session.LogInfo, line, actor, juniorID); err != nil {
			s.log.Warn("uncle edge recorded but its timeline lines were not", "session_id", juniorID, "err", err)
		}
	}
	return UncleOutcome(res)
}

// Hierarchy reads a session and the bounded lineage graph around it.
func (s *Service) Hierarchy(ctx context.Context, id int64) (*session.Session, *lineage.Hierarchy, error) {
	sess, h, err := s.store.SessionHierarchy(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	s.obs.ObserveWalk(len(h.Nodes), h.Truncated)
	return sess, h, nil
}

// RemoveUncleParams name the edge to remove and who removes it.
type RemoveUncleParams struct {
	Junior  int64
	Uncle   string // id or slug, as given: a miss gets its own wording, so it is resolved here
	Acting  string // acting_session_id, raw
	Surface string // "MCP" or "REST", for the actor phrase
	Source  string // e.g. api_v1:sessions.uncle_links.destroy
}

// RemovedUncle reports a removed edge.
type RemovedUncle struct {
	JuniorID, UncleID int64
	EdgeSource        string
	RecordedAt        time.Time
}

// RemoveUncle takes exactly one uncle edge, Uncle → Junior, out of the lineage (kept as a former
// edge, so the lineage as of an earlier time can be read) and logs it on both timelines. A miss
// is an error (never a silent success), with a hint when the edge points the other way.
func (s *Service) RemoveUncle(ctx context.Context, p RemoveUncleParams) (RemovedUncle, error) {
	if err := s.vouch(ctx, "acting_session_id", p.Acting); err != nil {
		return RemovedUncle{}, err
	}
	junior, err := s.store.GetSession(ctx, p.Junior)
	if err != nil {
		return RemovedUncle{}, err
	}
	uncleKey := strings.TrimSpace(p.Uncle)
	if uncleKey == "" {
		return RemovedUncle{}, invalid("Validation failed", "uncle_session_id is required.")
	}
	uncleID, err := s.Resolve(ctx, uncleKey)
	if errors.Is(err, graph.ErrNotFound) {
		return RemovedUncle{}, &NotFoundError{Message: fmt.Sprintf("No session %q, so it cannot be an additional senior of session #%d.", uncleKey, junior.ID)}
	}
	if err != nil {
		return RemovedUncle{}, err
	}
	uncle, err := s.store.GetSession(ctx, uncleID)
	if err != nil {
		return RemovedUncle{}, err
	}
	remover := actorPhrase(p.Acting, p.Surface)
	edge, reverse, err := s.store.RemoveUncleEdge(ctx, uncle.ID, junior.ID, remover, p.Source)
	if errors.Is(err, graph.ErrNotFound) {
		msg := fmt.Sprintf("No uncle edge #%d → #%d: session #%d is not recorded as an additional senior of session #%d.", uncle.ID, junior.ID, uncle.ID, junior.ID)
		if reverse {
			msg += fmt.Sprintf(" The edge between them points the other way — #%d is senior to #%d. Remove that one by naming #%d as the session and #%d as the uncle.",
				junior.ID, uncle.ID, uncle.ID, junior.ID)
		}
		return RemovedUncle{}, &NotFoundError{Message: msg}
	}
	if err != nil {
		return RemovedUncle{}, err
	}
	source := edge.Source
	if source == "" {
		source = "an unrecorded entry point"
	}
	line := fmt.Sprintf("Uncle edge removed: #%d is no longer linked as an additional senior of #%d. The edge #%d → #%d was recorded at %s by %s and detached by %s (%s).",
		uncle.ID, junior.ID, uncle.ID, junior.ID, edge.CreatedAt.UTC().Format(time.RFC3339), source, remover, p.Source)
	if _, err := s.store.AppendLog(ctx, session.LogInfo, line, uncle.ID, junior.ID); err != nil {
		s.log.Warn("uncle edge removed but its timeline lines were not", "session_id", junior.ID, "err", err)
	}
	return RemovedUncle{JuniorID: junior.ID, UncleID: uncle.ID, EdgeSource: edge.Source, RecordedAt: edge.CreatedAt}, nil
}

// actorPhrase names a caller on a timeline: "session #12 via the REST API", or "an undeclared
// REST API caller" when no well-formed acting_session_id was given.
func actorPhrase(acting, surface string) string {
	if id, ok := session.ParseID(acting); ok {
		return fmt.Sprintf("session #%d via the %s API", id, surface)
	}
	return fmt.Sprintf("an undeclared %s API caller", surface)
}

// ParseAsOf reads an as_of argument: an RFC 3339 time. Blank is the zero time (now).
func ParseAsOf(raw string) (time.Time, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return time.Time{}, invalid("Invalid as_of", fmt.Sprintf("as_of must be an RFC 3339 time such as 2026-01-02T15:04:05Z; %q is not one.", raw))
	}
	return t, nil
}

// ProvenanceAsOf is a session's provenance record as it stood at asOf: the hierarchy over the
// edges live then (removed uncle edges count until their removal) and the human messages
// recorded by then. A session that did not exist yet is a NotFoundError saying so.
func (s *Service) ProvenanceAsOf(ctx context.Context, id int64, asOf time.Time) (provenance.Record, error) {
	p, err := s.store.ProvenanceAsOf(ctx, id, asOf)
	if errors.Is(err, graph.ErrNotFound) {
		return provenance.Record{}, &NotFoundError{Message: fmt.Sprintf("Session #%d did not exist as of %s.", id, asOf.UTC().Format(time.RFC3339))}
	}
	if err != nil {
		return provenance.Record{}, err
	}
	return provenance.Gather(p.Session, p.Hierarchy, p.Messages, p.Users, s.admin), nil
}
