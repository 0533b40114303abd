package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/mcpauth/mcpauthtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// A session whose server needs OAuth parks before the agent runs; when a human authorizes, it
// resumes on its own and the agent reaches the server with the token Zimmer holds.
func TestASessionParksForOAuthAndResumesWhenAuthorized(t *testing.T) {
	srv := mcpauthtest.Start(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		"roots.json": fmt.Sprintf(`{"solo": {"url": %q, "default_branch": "main"}}`, repoURL),
		"mcp.json":   fmt.Sprintf(`{"notes": {"type": "streamable-http", "url": %q}}`, srv.URL()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := private(t, envOptions{catalog: dir, oauth: orchestrator.OAuthConfig{SecretKey: "runner-oauth-secret-key-0123456789abcdef", PublicURL: "http://zimmer.test"}})
	// The credential node is global: start from none.
	if rec, err := e.store.OAuthCredential(context.Background(), "notes"); err == nil {
		if err := e.store.DeleteOAuthCredential(context.Background(), "notes", rec.Sealed); err != nil {
			t.Fatal(err)
		}
	}
	id := e.create(t, map[string]any{"prompt": "CALL whoami {}", "mcp_servers": []string{"notes"}})
	parked := e.waitStatus(t, id, session.StatusFailed)
	if reason := session.BagString(parked.Metadata, session.MetaFailureReason); reason != orchestrator.FailureOAuthRequired {
		t.Fatalf("failed with %q: %v", reason, parked.Metadata)
	}
	waiting, _ := parked.Metadata[session.MetaOAuthRequiredServers].([]any)
	if len(waiting) != 1 || waiting[0].(map[string]any)["server_name"] != "notes" || waiting[0].(map[string]any)["server_url"] != srv.URL() {
		t.Fatalf("it says what it waits for: %v", waiting)
	}
	if _, err := os.Stat(e.log); err == nil && len(e.invocations(t, id)) != 0 {
		t.Fatal("the agent never ran")
	}

	u, err := e.ops.BeginOAuth(context.Background(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	state, code := mcpauthtest.Consent(t, u)
	done, err := e.ops.CompleteOAuth(context.Background(), state, code, "")
	if err != nil || len(done.Resumed) != 1 || done.Resumed[0] != id {
		t.Fatalf("authorizing resumes the session: %+v %v", done, err)
	}
	e.waitFor(t, id, "the resumed turn to end", 40*time.Second, func(s *session.Session) bool {
		return s.Status == session.StatusNeedsInput && len(turns(e.transcript(t, id))) == 1
	})
	if !transcriptHas(e.transcript(t, id), "authorized over OAuth") {
		t.Fatalf("the agent's call reached the OAuth server with Zimmer's token: %v", e.transcript(t, id))
	}
}
