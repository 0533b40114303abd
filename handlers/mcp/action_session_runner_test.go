package mcp_test

import (
	"fmt"
	"testing"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The runner-bound actions reach the runner's operations; the runner itself is tested end to end
// in jobs/runner.
func TestRunnerBoundActionsReachTheirOperations(t *testing.T) {
	t.Parallel()
	e := setup(t)
	running := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	contains(t, e.ok(t, "/mcp", "action_session", act(running.ID, "pause", nil)), "## Session Paused", "- **Status:** needs_input")
	if got := e.reload(t, running); got.Metadata[session.MetaPausedBy] != orchestrator.PausedByUser {
		t.Fatalf("paused by hand: %v", got.Metadata)
	}
	busy := e.fixture(t, func(s *session.Session) { s.Status = session.StatusRunning })
	e.refused(t, "/mcp", "action_session", act(busy.ID, "restart", nil), "Cannot restart")
	e.refused(t, "/mcp", "action_session", act(busy.ID, "fork", nil), `The "message_index" parameter is required for the "fork" action.`)
	e.refused(t, "/mcp", "action_session", act(busy.ID, "fork", map[string]any{"message_index": 0}),
		fmt.Sprintf("Fork failed: session #%d has no transcript yet", busy.ID))
	e.refused(t, "/mcp", "action_session", act(busy.ID, "refresh", nil), "Cannot refresh")
	prompt := "do it"
	failed := e.fixture(t, func(s *session.Session) {
		s.Status, s.Prompt = session.StatusFailed, &prompt
		s.Metadata[session.MetaFailureReason] = orchestrator.FailureSpawn
	})
	contains(t, e.ok(t, "/mcp", "action_session", act(failed.ID, "restart", nil)), "## Session Restarted", "- **Status:** running")
}
