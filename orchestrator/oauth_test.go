package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/mcpauth"
	"github.com/zimmerhq/zimmer/mcpauth/mcpauthtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

const testSecretKey = "oauth-test-secret-key-0123456789abcdef"

// oauthEnv is a service whose catalog holds one OAuth server (named uniquely: credentials are
// global in the shared graph) protected by a local authorization server.
type oauthEnv struct {
	orchestratortest.Env
	srv    *mcpauthtest.Server
	server string
	clock  *clock
}

func newOAuthEnv(t *testing.T, key string) oauthEnv {
	t.Helper()
	srv := mcpauthtest.Start(t)
	name := graphtest.Unique(t, "notes")
	dir := t.TempDir()
	files := map[string]string{
		"roots.json": `{"general-agent": {"url": "file:///tmp/nowhere"}}`,
		"mcp.json": fmt.Sprintf(`{%q: {"type": "streamable-http", "url": %q},
  "static-remote": {"type": "streamable-http", "url": "https://static.example/mcp", "headers": {"Authorization": "Bearer fixed"}}}`, name, srv.URL()),
	}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := &clock{now: time.Now()}
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, CatalogDir: dir, Now: c.Now,
		OAuth: orchestrator.OAuthConfig{SecretKey: key, PublicURL: "http://zimmer.test"}})
	return oauthEnv{Env: e, srv: srv, server: name, clock: c}
}

func (e oauthEnv) state(t *testing.T) catalog.Readiness {
	t.Helper()
	_, ready := e.Ops.Readiness()
	return ready[e.server]
}

// authorize runs the whole flow as the Authorize button and the browser would.
func (e oauthEnv) authorize(t *testing.T) orchestrator.OAuthCompletion {
	t.Helper()
	ctx := context.Background()
	u, err := e.Ops.BeginOAuth(ctx, e.server)
	if err != nil {
		t.Fatal(err)
	}
	state, code := mcpauthtest.Consent(t, u)
	done, err := e.Ops.CompleteOAuth(ctx, state, code, "")
	if err != nil {
		t.Fatal(err)
	}
	return done
}

// The whole lifecycle of one server's credential, each readiness state on the way: never
// authorized, authorized (discovery, registration, PKCE), expired but refreshable and renewed by
// the refresh job, expired with a refresh the provider refuses (retired), and expired with
// nothing to refresh it with.
func TestOAuthCredentialLifecycleDrivesReadiness(t *testing.T) {
	e := newOAuthEnv(t, testSecretKey)
	ctx := context.Background()
	if got := e.state(t); got.State != catalog.StateNeedsAuthorization || got.Reason != "OAuth authorization not completed" {
		t.Fatalf("never authorized: %+v", got)
	}
	_, ready := e.Ops.Readiness()
	if got := ready["static-remote"]; got.State != catalog.StateNoCredentialRequired {
		t.Fatalf("a remote server with a static Authorization header needs no OAuth: %+v", got)
	}

	if done := e.authorize(t); done.Server != e.server {
		t.Fatalf("completed for %q", done.Server)
	}
	if got := e.state(t); got.State != catalog.StateReady {
		t.Fatalf("authorized: %+v", got)
	}
	tokens, missing := e.Ops.OAuthGate(ctx, []string{e.server})
	if len(missing) != 0 || !e.srv.Live(tokens[e.server].AccessToken) {
		t.Fatalf("the gate hands over a token the resource server honours: %v %v", tokens, missing)
	}
	if regs, _ := e.srv.Counts(); regs != 1 {
		t.Fatalf("one dynamic registration: %d", regs)
	}

	e.clock.Advance(2 * time.Hour) // past the hour-long token
	if got := e.state(t); got.State != catalog.StateTokenExpired || got.Blocks() {
		t.Fatalf("expired with a refresh token: %+v (blocks %v)", got, got.Blocks())
	}
	out, err := e.Ops.RefreshOAuthCredentials(ctx, 10*time.Minute)
	if err != nil || out.Renewed < 1 {
		t.Fatalf("the refresh job renews it: %+v %v", out, err)
	}
	if got := e.state(t); got.State != catalog.StateReady {
		t.Fatalf("renewed: %+v", got)
	}

	e.srv.Set(func(s *mcpauthtest.Server) { s.RejectRefresh = true })
	e.clock.Advance(2 * time.Hour)
	if out, err := e.Ops.RefreshOAuthCredentials(ctx, 10*time.Minute); err != nil || out.Retired < 1 {
		t.Fatalf("a refused refresh retires the credential: %+v %v", out, err)
	}
	if got := e.state(t); got.State != catalog.StateNeedsAuthorization {
		t.Fatalf("retired: %+v", got)
	}

	e.srv.Set(func(s *mcpauthtest.Server) { s.NoRefresh, s.RejectRefresh = true, false })
	e.authorize(t)
	if regs, _ := e.srv.Counts(); regs != 2 {
		t.Fatalf("a retired credential takes its registration with it; re-registered: %d", regs)
	}
	e.clock.Advance(2 * time.Hour)
	if got := e.state(t); got.State != catalog.StateNeedsReauth || got.Reason != "OAuth token expired and cannot be refreshed" || !got.Blocks() {
		t.Fatalf("expired without a refresh token: %+v", got)
	}
	if _, missing := e.Ops.OAuthGate(ctx, []string{e.server}); len(missing) != 1 || missing[0].Server != e.server {
		t.Fatalf("the gate refuses an expired credential: %v", missing)
	}
}

// The credential is sealed at rest: the graph holds no token in the clear, and a service with a
// different ZIMMER_SECRET_KEY cannot use it.
func TestOAuthCredentialsAreEncryptedAtRest(t *testing.T) {
	e := newOAuthEnv(t, testSecretKey)
	e.authorize(t)
	ctx := context.Background()
	tokens, _ := e.Ops.OAuthGate(ctx, []string{e.server})
	rec, err := e.Store.OAuthCredential(ctx, e.server)
	if err != nil {
		t.Fatal(err)
	}
	if tokens[e.server].AccessToken == "" || strings.Contains(rec.Sealed, tokens[e.server].AccessToken) || strings.Contains(rec.Sealed, "rt-") {
		t.Fatalf("the stored value carries no token in the clear")
	}
	other, err := mcpauth.NewSealer("a-different-secret-key-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Open(rec.Sealed, "mcp-oauth-credential:"+e.server); !errors.Is(err, mcpauth.ErrUnsealable) {
		t.Fatalf("another key cannot open it: %v", err)
	}
}

// Without ZIMMER_SECRET_KEY nothing can be stored: the server needs authorization, saying what
// to set, and Authorize refuses with the same advice.
func TestOAuthIsOffWithoutASecretKey(t *testing.T) {
	e := newOAuthEnv(t, "")
	if got := e.state(t); got.State != catalog.StateNeedsAuthorization || !strings.Contains(got.Reason, "ZIMMER_SECRET_KEY") {
		t.Fatalf("no key: %+v", got)
	}
	if _, err := e.Ops.BeginOAuth(context.Background(), e.server); !errors.Is(err, orchestrator.ErrOAuthOff) || !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("Authorize refuses: %v", err)
	}
}

// A callback whose state Zimmer did not seal, or that comes too late, changes nothing.
func TestOAuthCallbackRefusesForeignOrStaleState(t *testing.T) {
	e := newOAuthEnv(t, testSecretKey)
	ctx := context.Background()
	if _, err := e.Ops.CompleteOAuth(ctx, "forged", "code", ""); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("forged state: %v", err)
	}
	u, err := e.Ops.BeginOAuth(ctx, e.server)
	if err != nil {
		t.Fatal(err)
	}
	state, code := mcpauthtest.Consent(t, u)
	e.clock.Advance(time.Hour)
	if _, err := e.Ops.CompleteOAuth(ctx, state, code, ""); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("stale state: %v", err)
	}
	if got := e.state(t); got.State != catalog.StateNeedsAuthorization {
		t.Fatalf("nothing stored: %+v", got)
	}
}

// A session parked for OAuth resumes, with the prompt its agent never saw, once a human
// authorizes the server it waited for.
func TestAuthorizingResumesTheSessionsParkedForIt(t *testing.T) {
	e := newOAuthEnv(t, testSecretKey)
	ctx := context.Background()
	root, prompt, servers := "general-agent", "use the notes", []string{e.server}
	out, err := e.Ops.Create(ctx, orchestrator.CreateParams{AgentRoot: &root, Prompt: &prompt, MCPServers: &servers})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "park for OAuth authorization") {
		t.Fatalf("the create warns it will park: %v", out.Warnings)
	}
	id := out.Session.ID
	sess, err := e.Ops.ClaimRun(ctx, id, *out.Session.JobID, prompt)
	if err != nil {
		t.Fatal(err)
	}
	_, missing := e.Ops.OAuthGate(ctx, sess.MCPServers)
	if err := e.Ops.ParkForOAuth(ctx, id, *out.Session.JobID, missing); err != nil {
		t.Fatal(err)
	}
	parked, _ := e.Ops.Get(ctx, id)
	if parked.Status != session.StatusFailed || session.BagString(parked.Metadata, session.MetaFailureReason) != orchestrator.FailureOAuthRequired {
		t.Fatalf("parked: %s %v", parked.Status, parked.Metadata)
	}
	done := e.authorize(t)
	if len(done.Resumed) != 1 || done.Resumed[0] != id {
		t.Fatalf("resumed %v, want [%d]", done.Resumed, id)
	}
	resumed, _ := e.Ops.Get(ctx, id)
	pending, _ := resumed.Metadata[session.MetaPendingDispatch].(map[string]any)
	if resumed.Status != session.StatusRunning || pending["prompt"] != prompt {
		t.Fatalf("running again with its own prompt: %s %v", resumed.Status, resumed.Metadata)
	}
	if _, waiting := resumed.Metadata[session.MetaOAuthRequiredServers]; waiting {
		t.Fatal("the parked-for list is cleared")
	}
}
