package handlers_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/mcpauth/mcpauthtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// sweepFixture gives one route of the immutability sweep what it needs to do its work: the id
// its path names (for routes whose :id is not a session) and the fields it must be sent.
type sweepFixture func(t *testing.T, s *sweep) (id string, fields map[string]any)

func parkedInSpotQueue(t *testing.T, s *sweep) (string, map[string]any) {
	t.Helper()
	parked := graphtest.Session(t, s.h.store, func(d *session.Session) {
		d.Status = session.StatusNeedsInput
		d.Metadata[session.MetaRuntimeStarted] = true
	})
	if _, _, err := s.h.ops.PauseIntoSpotQueue(context.Background(), parked.ID, false); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(parked.ID), nil
}

func queuedItem(t *testing.T, s *sweep) string {
	t.Helper()
	it, err := s.h.ops.AppendBacklogItem(context.Background(), orchestrator.BacklogAppend{
		IssueURL: "https://github.com/x/y/issues/" + graphtest.Unique(t, "sweep"), AddedBy: "the sweep"})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(it.ID)
}

func analysedSession(t *testing.T, s *sweep, save bool) string {
	t.Helper()
	a := graphtest.Session(t, s.h.store, func(d *session.Session) { d.Status = session.StatusArchived })
	if save {
		if _, err := s.h.ops.SaveOutcomeAnalysis(context.Background(), orchestrator.OutcomeSave{SessionID: a.ID, Root: sweepTree}); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprint(a.ID)
}

var sweepTree = map[string]any{"trigger": map[string]any{"kind": "New", "source": "user"},
	"goal": map[string]any{"text": "t", "kind": "Action"}, "outcome": map[string]any{"kind": "Success", "explanation": "e"}}

func builtArchive(t *testing.T, s *sweep) (string, map[string]any) {
	t.Helper()
	if _, err := s.h.ops.BuildTranscriptArchive(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	return "", nil
}

// sweepOAuthServer is the sweep catalog's OAuth server.
const sweepOAuthServer = "sweep-notes"

var sweepFixtures = map[string]sweepFixture{
	"web POST /connectors/:id/authorize": func(*testing.T, *sweep) (string, map[string]any) { return sweepOAuthServer, nil },
	"web GET " + orchestrator.OAuthCallbackPath: func(t *testing.T, s *sweep) (string, map[string]any) {
		u, err := s.h.ops.BeginOAuth(context.Background(), sweepOAuthServer)
		if err != nil {
			t.Fatal(err)
		}
		state, code := mcpauthtest.Consent(t, u)
		return "", map[string]any{"state": state, "code": code}
	},
	"REST POST /sessions/:id/start_now": parkedInSpotQueue,
	"web POST /sessions/:id/start_now":  parkedInSpotQueue,
	"REST POST /backlog": func(t *testing.T, _ *sweep) (string, map[string]any) {
		return "", map[string]any{"issue_url": "https://github.com/x/y/issues/" + graphtest.Unique(t, "sweep")}
	},
	"REST PATCH /backlog/:id": func(t *testing.T, s *sweep) (string, map[string]any) {
		return queuedItem(t, s), map[string]any{"pinned": true}
	},
	"REST DELETE /backlog/:id": func(t *testing.T, s *sweep) (string, map[string]any) {
		return queuedItem(t, s), map[string]any{"reason": "swept"}
	},
	"REST POST /backlog/:id/start":          func(t *testing.T, s *sweep) (string, map[string]any) { return queuedItem(t, s), nil },
	"REST GET /transcript_archive/status":   builtArchive,
	"REST GET /transcript_archive/download": builtArchive,
	"REST POST /outcome_analyses": func(t *testing.T, s *sweep) (string, map[string]any) {
		return "", map[string]any{"session_id": analysedSession(t, s, false), "root": sweepTree}
	},
	"REST GET /outcome_analyses/:id": func(t *testing.T, s *sweep) (string, map[string]any) { return analysedSession(t, s, true), nil },
	"REST PATCH /elicitations/:id/respond": func(t *testing.T, s *sweep) (string, map[string]any) {
		id := graphtest.Unique(t, "sweep")
		if _, err := s.h.ops.CreateElicitation(context.Background(), orchestrator.ElicitationAsk{RequestID: id, Message: "ok?"}); err != nil {
			t.Fatal(err)
		}
		return id, map[string]any{"action_type": "accept", "content": map[string]any{"ok": true}}
	},
	"web POST /backlog": func(t *testing.T, _ *sweep) (string, map[string]any) {
		return "", map[string]any{"issue_url": "https://github.com/x/y/issues/" + graphtest.Unique(t, "sweep")}
	},
	"web POST /backlog/:id/pin": func(t *testing.T, s *sweep) (string, map[string]any) {
		return queuedItem(t, s), map[string]any{"pinned": "true"}
	},
	"web POST /backlog/:id/place": func(t *testing.T, s *sweep) (string, map[string]any) {
		return queuedItem(t, s), map[string]any{"position": 1}
	},
	"web POST /backlog/:id/remove": func(t *testing.T, s *sweep) (string, map[string]any) {
		return queuedItem(t, s), map[string]any{"reason": "swept"}
	},
	"web POST /backlog/:id/start": func(t *testing.T, s *sweep) (string, map[string]any) { return queuedItem(t, s), nil },
	// Turning recovery mode off is the switch's harmless direction on a shared Redis.
	"web POST /health/queue_recovery_mode": func(*testing.T, *sweep) (string, map[string]any) {
		return "", map[string]any{"mode": "off"}
	},
	"web POST /gate_decisions/:id/feedback": func(t *testing.T, s *sweep) (string, map[string]any) {
		d, err := s.h.ops.RecordGateDecision(context.Background(), orchestrator.GateRecord{Surface: graphtest.Unique(t, "sweep"), Decision: "hold"})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(d.Decision.ID), map[string]any{"feedback": "swept"}
	},
}
