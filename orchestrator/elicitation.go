package orchestrator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
)

// Elicitations: an MCP server running under a session's agent asks the human a question over
// HTTP (the runner gives it the URLs); the session's turn blocks on it — the process stays
// alive — until someone answers, and an elicitation nobody answers expires and is reported on
// the session rather than waited on forever.

// ElicitationResolved is the label of the refusal to answer an elicitation twice.
const ElicitationResolved = "Elicitation has already been resolved"

// ErrElicitationNotFound is an unknown elicitation; it is also ErrNotFound.
var ErrElicitationNotFound = fmt.Errorf("elicitation %w", ErrNotFound)

// ElicitationAsk is a new elicitation as an MCP server sends it.
type ElicitationAsk struct {
	RequestID, Message, Mode string
	RequestedSchema          map[string]any
	SessionID                *int64
	TTL                      time.Duration // zero is session.DefaultElicitationTTL
}

// CreateElicitation records a pending elicitation and, when it names a running session, blocks
// that session's turn on it.
func (s *Service) CreateElicitation(ctx context.Context, a ElicitationAsk) (session.Elicitation, error) {
	var p problems
	a.RequestID, a.Message = strings.TrimSpace(a.RequestID), strings.TrimSpace(a.Message)
	switch {
	case a.RequestID == "":
		p.add("the request id (_meta[\"com.pulsemcp/request-id\"]) is required")
	case len(a.RequestID) > session.MaxElicitationID:
		p.add(fmt.Sprintf("the request id is too long (maximum is %d characters)", session.MaxElicitationID))
	}
	switch {
	case a.Message == "":
		p.add("message is required")
	case len(a.Message) > session.MaxElicitationMessage:
		p.add(fmt.Sprintf("message is too long (maximum is %d characters)", session.MaxElicitationMessage))
	}
	if a.TTL < 0 || a.TTL > session.MaxElicitationTTL {
		p.add(fmt.Sprintf("the expiry must be within %s", session.MaxElicitationTTL))
	}
	if err := p.err("Validation failed"); err != nil {
		return session.Elicitation{}, err
	}
	if a.SessionID != nil {
		if _, err := s.store.GetSession(ctx, *a.SessionID); err != nil {
			return session.Elicitation{}, invalid("Validation failed", fmt.Sprintf("session %d not found", *a.SessionID))
		}
	}
	e, err := s.store.InsertElicitation(ctx, session.Elicitation{RequestID: a.RequestID, Message: a.Message, Mode: a.Mode,
		RequestedSchema: a.RequestedSchema, SessionID: a.SessionID, ExpiresAt: s.now().Add(cmp.Or(a.TTL, session.DefaultElicitationTTL))})
	if errors.Is(err, graph.ErrConflict) {
		return session.Elicitation{}, invalid("Validation failed", fmt.Sprintf("an elicitation with request id %q already exists", a.RequestID))
	}
	if err != nil || e.SessionID == nil {
		return e, err
	}
	_, err = s.update(ctx, *e.SessionID, func(u *session.Session) error {
		if u.Status != session.StatusRunning {
			return nil // nothing to block: whoever answers finds the session as it is
		}
		if err := s.applyEvent(u, session.EventBlockOnElicitation, "Cannot block"); err != nil {
			return err
		}
		u.Metadata[session.MetaBlockedOnElicitation] = true
		return nil
	})
	if err != nil {
		return e, err
	}
	s.timeline(ctx, *e.SessionID, session.LogInfo, "Waiting on an elicitation ("+e.RequestID+"): "+elicitationSummary(e.Message))
	return e, nil
}

// WaitsOnElicitation reports a turn whose session is blocked on an elicitation: the turn still
// owns it (its process must stay alive for the answer) though the session is in needs_input.
func WaitsOnElicitation(u *session.Session, taskID string) bool {
	return u.Status == session.StatusNeedsInput && u.Flag(session.MetaBlockedOnElicitation) &&
		u.RunningJobID != nil && *u.RunningJobID == taskID
}

// elicitationSummary is what an elicitation asked, on one line and short enough for a marker.
func elicitationSummary(msg string) string {
	line := provenance.OneLine(msg)
	if r := []rune(line); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return line
}

// Elicitation reads an elicitation by request id or numeric id; a pending one past its expiry
// is expired first, so a poller never waits on a question nobody can answer any more.
func (s *Service) Elicitation(ctx context.Context, key string) (session.Elicitation, error) {
	e, err := s.store.Elicitation(ctx, key)
	if errors.Is(err, graph.ErrNotFound) {
		return e, &NotFoundError{Message: "Elicitation not found for: " + key, Kind: ErrElicitationNotFound}
	}
	if err != nil || e.Status != session.ElicitationPending || s.now().Before(e.ExpiresAt) {
		return e, err
	}
	if _, err := s.ExpireElicitations(ctx); err != nil {
		return e, err
	}
	return s.store.Elicitation(ctx, key)
}

// RespondElicitation answers a pending elicitation (content is kept only for an accept) and
// lets the session's blocked turn go on.
func (s *Service) RespondElicitation(ctx context.Context, key, action string, content map[string]any) (session.Elicitation, error) {
	if !slices.Contains(session.ElicitationActions, action) {
		return session.Elicitation{}, invalid("Validation failed", fmt.Sprintf("action_type must be one of %s (got %q)", strings.Join(session.ElicitationActions, ", "), action))
	}
	e, err := s.Elicitation(ctx, key)
	if err != nil {
		return e, err
	}
	if e.Status != session.ElicitationPending {
		return e, invalid(ElicitationResolved, fmt.Sprintf("status: %s", e.Status))
	}
	if action != string(session.ElicitationAccept) {
		content = nil
	}
	e, err = s.store.ResolveElicitation(ctx, e.ID, session.ElicitationStatus(action), content)
	if errors.Is(err, graph.ErrNotFound) { // answered or expired a moment ago
		cur, rerr := s.store.Elicitation(ctx, key)
		if rerr != nil {
			return cur, rerr
		}
		return cur, invalid(ElicitationResolved, fmt.Sprintf("status: %s", cur.Status))
	}
	if err != nil || e.SessionID == nil {
		return e, err
	}
	_, err = s.update(ctx, *e.SessionID, func(u *session.Session) error {
		if u.Status != session.StatusNeedsInput || !u.Flag(session.MetaBlockedOnElicitation) {
			return nil
		}
		if err := s.applyEvent(u, session.EventUnblockFromElicitation, "Cannot unblock"); err != nil {
			return err
		}
		delete(u.Metadata, session.MetaBlockedOnElicitation)
		delete(u.Metadata, session.MetaLostElicitation)
		return nil
	})
	return e, err
}

// ExpireElicitations expires every overdue pending elicitation and reports each on its
// session: a turn blocked on one is released (its process ends) and the session stays in
// needs_input with a lost_elicitation marker and a timeline line saying what was asked.
func (s *Service) ExpireElicitations(ctx context.Context) ([]session.Elicitation, error) {
	expired, err := s.store.ExpireElicitations(ctx)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, e := range expired {
		if e.SessionID == nil {
			continue
		}
		released := false
		_, err := s.update(ctx, *e.SessionID, func(u *session.Session) error {
			if u.Status != session.StatusNeedsInput || !u.Flag(session.MetaBlockedOnElicitation) {
				return nil
			}
			delete(u.Metadata, session.MetaBlockedOnElicitation)
			u.Metadata[session.MetaLostElicitation] = map[string]any{"reason": "expired", "at": s.now().UTC().Format(time.RFC3339),
				"request_id": e.RequestID, "summary": elicitationSummary(e.Message)}
			u.RunningJobID = nil // the turn that waited on it is over
			released = true
			return nil
		})
		if errors.Is(err, graph.ErrNotFound) {
			continue // the session was deleted
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if released {
			s.timeline(ctx, *e.SessionID, session.LogWarning, fmt.Sprintf(
				"An elicitation expired unanswered (%s): %s. The turn that waited on it was ended; send a follow-up to go on.",
				e.RequestID, elicitationSummary(e.Message)))
		}
	}
	return expired, errors.Join(errs...)
}
