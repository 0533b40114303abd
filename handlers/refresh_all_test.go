package handlers_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// refresh_all restarts the failed sessions, continues the idle ones no human paused and re-reads
// the transcripts of the rest; the trash, frozen categories and sessions that never ran are left
// alone. Over REST and MCP alike, scoped to this test's sessions.
func TestRefreshAllRestartsContinuesAndRereadsTheFleet(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	frozen, err := e.ops.CreateCategory(ctx, graphtest.Unique(t, "frozen"), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	fixture := func(status session.Status, edit func(*session.Session)) int64 {
		s := graphtest.Session(t, e.store, func(d *session.Session) {
			d.Status = status
			d.CustomMetadata["label"] = e.fleet
			d.Metadata[session.MetaRuntimeStarted] = true
			id := "rt-" + graphtest.Unique(t, "conv")
			d.RuntimeSessionID = &id
			if edit != nil {
				edit(d)
			}
		})
		return s.ID
	}
	failed := fixture(session.StatusFailed, nil)
	idle := fixture(session.StatusNeedsInput, nil)
	paused := fixture(session.StatusNeedsInput, func(d *session.Session) {
		d.Metadata[session.MetaPausedBy] = orchestrator.PausedByUser
		d.Metadata[session.MetaTranscriptPath] = "recorded"
	})
	neverRan := fixture(session.StatusWaiting, func(d *session.Session) { delete(d.Metadata, session.MetaRuntimeStarted) })
	trashed := fixture(session.StatusArchived, nil)
	inFrozen := fixture(session.StatusFailed, func(d *session.Session) { d.CategoryID = &frozen.ID })
	elsewhere := graphtest.Session(t, e.store, func(d *session.Session) { d.Status = session.StatusFailed })
	path := transcript.Path(e.dataDir, paused)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := e.do(t, http.MethodPost, "/api/v1/sessions/refresh_all", nil)
	if r.status != http.StatusOK || r.body["restarted"] != float64(1) || r.body["continued"] != float64(1) || r.body["refreshed"] != float64(1) ||
		len(r.body["errors"].([]any)) != 0 || !strings.HasPrefix(r.body["message"].(string), "Refreshed 1, restarted 1, continued 1 session(s); 0 error(s)") {
		t.Fatalf("refresh_all: %d %s", r.status, r.raw)
	}
	for _, c := range []struct {
		name    string
		id      int64
		resumed bool
	}{
		{"failed", failed, true}, {"idle", idle, true}, {"paused by a human", paused, false}, {"never ran", neverRan, false},
		{"trashed", trashed, false}, {"in a frozen category", inFrozen, false}, {"outside the scope", elsewhere.ID, false},
	} {
		s, err := e.store.GetSession(ctx, c.id)
		if err != nil {
			t.Fatal(err)
		}
		_, dispatched := s.Metadata[session.MetaPendingDispatch]
		if resumed := dispatched || s.JobID != nil; resumed != c.resumed {
			t.Errorf("%s session: resumed %v, want %v (status %s)", c.name, resumed, c.resumed, s.Status)
		}
	}

	mcp := e.do(t, http.MethodPost, "/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "action_session", "arguments": map[string]any{"action": "refresh_all"}}}, "X-API-Key", apiKey, "Accept", "application/json")
	if !strings.Contains(mcp.raw, "## All Sessions Refreshed") || !strings.Contains(mcp.raw, `- **Restarted:** 0`) {
		t.Fatalf("refresh_all over MCP, the failed one already restarted: %s", mcp.raw)
	}
}
