package runner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/session"
)

// A spawned child reports to its parent over the self-session MCP server written into its own
// config; the idle parent runs a turn carrying the quoted report.
func TestSpawnedChildReportsToItsParentOverMCP(t *testing.T) {
	e := shared(t)
	parent := e.create(t, map[string]any{"prompt": "route this", "agent_root": "parent"})
	e.waitStatus(t, parent, session.StatusNeedsInput)
	child := e.create(t, map[string]any{"agent_root": "child", "parent_session_id": parent,
		"prompt": `CALL action_session {"action":"message_parent","reason":"missing_tools","message":"I need the deploy key.\nNothing else is blocked."}`})
	s := e.waitStatus(t, child, session.StatusNeedsInput)
	if got := s.InjectedMCPServers(); len(got) != 1 || got[0] != catalog.SelfSessionServer {
		t.Fatalf("a child root gets the self-session server: %v", got)
	}
	childTurn := turns(e.transcript(t, child))[0]
	if !strings.Contains(childTurn["prompt"].(string), "<session-hierarchy>") {
		t.Fatalf("a spawned child's prompt carries the hierarchy block: %s", childTurn["prompt"])
	}
	if !transcriptHas(e.transcript(t, child), "Message Sent to Parent") {
		t.Fatalf("the child's tool call succeeded: %v", e.transcript(t, child))
	}
	e.waitFor(t, parent, "the report's turn", 20*time.Second, func(p *session.Session) bool {
		return p.Status == session.StatusNeedsInput && len(turns(e.transcript(t, parent))) == 2
	})
	report := turns(e.transcript(t, parent))[1]["prompt"].(string)
	for _, want := range []string{"a report from your child session #" + itoa(child), "> I need the deploy key.", "> Nothing else is blocked.", "Reason: missing_tools"} {
		if !strings.Contains(report, want) {
			t.Fatalf("the parent's turn lacks %q:\n%s", want, report)
		}
	}
}

// A session archives itself mid-turn over MCP; the runner sees it and ends the turn without
// touching the session again.
func TestSessionArchivesItselfOverMCP(t *testing.T) {
	e := shared(t)
	id := e.create(t, map[string]any{"prompt": "CALL action_session {\"action\":\"archive\"}\nSLEEP 30"})
	// Waited for as a whole: a Neo4j read racing the archive's commit can see part of it.
	e.waitFor(t, id, "archived by itself", 20*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusArchived && s.ArchivedAt != nil && s.RunningJobID == nil
	})
	e.waitFor(t, id, "the turn to end", 10*time.Second, func(*session.Session) bool {
		inv := e.invocations(t, id)
		return len(inv) == 1 && gone(int(inv[0]["pid"].(float64)))
	})
	if !transcriptHas(e.transcript(t, id), "Session Archived") {
		t.Fatal("the archive call's result is in the transcript")
	}
	time.Sleep(200 * time.Millisecond)
	if s := e.get(t, id); s.Status != session.StatusArchived {
		t.Fatalf("nothing moved the archived session afterwards: %s", s.Status)
	}
}

// transcriptHas reports whether any line's JSON mentions text.
func transcriptHas(lines []map[string]any, text string) bool {
	for _, l := range lines {
		if strings.Contains(compact(l), text) {
			return true
		}
	}
	return false
}
