package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/mcpauth"
	"github.com/zimmerhq/zimmer/session"
)

// OAuth for remote MCP servers. A human starts the flow from the Connectors page's Authorize
// button; the authorization server sends the browser back to the callback, which stores the
// credential and resumes every session parked waiting for it. Credentials live in the graph
// (one McpOAuthCredential node per server), sealed with AES-GCM under ZIMMER_SECRET_KEY: the
// graph is the record both processes share — serve writes a credential at the callback, the
// worker reads it before every spawn and renews it in the refresh job — and a write there is
// transactional, where a file under the data directory would be one machine's and would need
// its own locking against a refresh racing a spawn. Only the expiry and whether a refresh
// token exists sit beside the sealed value in the clear, so readiness never decrypts anything.
//
// The flow's own state (the PKCE verifier, the registered client, the endpoints) travels
// sealed in the OAuth state parameter, so nothing is stored before a human finishes consenting.

// OAuthCallbackPath is the web route the authorization server redirects to.
const OAuthCallbackPath = "/connectors/oauth/callback"

// FailureOAuthRequired parks a session whose MCP server has no usable OAuth credential.
const FailureOAuthRequired = "oauth_required"

// OAuthConfig configures the flow; a blank SecretKey turns OAuth off (nothing can be stored).
type OAuthConfig struct {
	SecretKey  string       // ZIMMER_SECRET_KEY
	PublicURL  string       // ZIMMER_PUBLIC_URL: the callback is PublicURL + OAuthCallbackPath
	HTTPClient *http.Client // nil: a client with a 30-second timeout
	ClientName string       // what dynamic registration calls Zimmer ("Zimmer")
}

// ErrOAuthOff means no ZIMMER_SECRET_KEY is set, so no credential can be stored (a refusal the
// surfaces show like any validation error).
var ErrOAuthOff error = &ValidationError{Label: "OAuth is off",
	Messages: []string{"set ZIMMER_SECRET_KEY (32 characters or more) and restart Zimmer to authorize MCP servers"}}

// oauthFlow is the service's OAuth side; nil sealer means off.
type oauthFlow struct {
	sealer   *mcpauth.Sealer
	hc       *http.Client
	redirect string
	name     string
}

func newOAuthFlow(c OAuthConfig) (*oauthFlow, error) {
	f := &oauthFlow{hc: c.HTTPClient, redirect: strings.TrimSuffix(c.PublicURL, "/") + OAuthCallbackPath, name: c.ClientName}
	if f.hc == nil {
		f.hc = &http.Client{Timeout: 30 * time.Second}
	}
	if f.name == "" {
		f.name = "Zimmer"
	}
	if c.SecretKey == "" {
		return f, nil
	}
	sealer, err := mcpauth.NewSealer(c.SecretKey)
	if err != nil {
		return f, err
	}
	f.sealer = sealer
	return f, nil
}

// storedCredential is what a credential's sealed value holds.
type storedCredential struct {
	Metadata mcpauth.Metadata `json:"metadata"`
	Client   mcpauth.Client   `json:"client"`
	Token    mcpauth.Token    `json:"token"`
}

// flowState is what the state parameter carries, sealed, from the Authorize button to the callback.
type flowState struct {
	Server   string           `json:"server"`
	URL      string           `json:"url"`
	Verifier string           `json:"verifier"`
	Metadata mcpauth.Metadata `json:"metadata"`
	Client   mcpauth.Client   `json:"client"`
	Expires  time.Time        `json:"expires"`
}

// oauthFlowWindow is how long a human has between Authorize and consenting.
const oauthFlowWindow = 15 * time.Minute

// expirySkew treats a token this close to its expiry as expired: it would die mid-turn.
const expirySkew = time.Minute

const stateAD = "mcp-oauth-state"

func credentialAD(server string) string { return "mcp-oauth-credential:" + server }

// OAuthEnabled reports whether Zimmer can store OAuth credentials (ZIMMER_SECRET_KEY is set).
func (s *Service) OAuthEnabled() bool { return s.oauth.sealer != nil }

// CredentialState answers readiness for one server from its stored credential (the
// catalog.CredentialStore contract).
func (s *Service) CredentialState(ctx context.Context, server string) (catalog.CredentialState, error) {
	c, err := s.store.OAuthCredential(ctx, server)
	if errors.Is(err, graph.ErrNotFound) {
		return catalog.CredentialNone, nil
	}
	if err != nil {
		return "", err
	}
	return credentialState(c, s.now()), nil
}

func credentialState(c graph.OAuthCredential, now time.Time) catalog.CredentialState {
	switch {
	case c.ExpiresAt == nil || now.Add(expirySkew).Before(*c.ExpiresAt):
		return catalog.CredentialActive
	case c.Refreshable:
		return catalog.CredentialExpiredRefreshable
	}
	return catalog.CredentialExpired
}

// oauthServer is the catalog entry of an OAuth-capable server and its URL.
func (s *Service) oauthServer(server string) (*catalog.Artifact, string, error) {
	a, ok := s.Catalog().MCPServers[server]
	if !ok {
		return nil, "", &NotFoundError{Message: fmt.Sprintf("No MCP server %q in the catalog", server)}
	}
	if !a.OAuthCapable() {
		return nil, "", invalid("Cannot authorize", fmt.Sprintf("MCP server %q does not use OAuth (it is not a remote server without a static credential)", server))
	}
	u, _ := a.Raw["url"].(string)
	if strings.Contains(u, "${") {
		return nil, "", invalid("Cannot authorize", fmt.Sprintf("MCP server %q has a URL built from variables; OAuth needs a literal URL", server))
	}
	return a, u, nil
}

// catalogClient is a client the catalog entry pre-registers (oauth.client_id / clientId), if any.
func catalogClient(a *catalog.Artifact) (mcpauth.Client, bool) {
	o, _ := a.Raw["oauth"].(map[string]any)
	pick := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := o[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	c := mcpauth.Client{ID: pick("client_id", "clientId"), Secret: pick("client_secret", "clientSecret")}
	return c, c.ID != ""
}

// BeginOAuth starts authorizing server: discovery, a client (the catalog's, the one registered
// before, or a fresh dynamic registration) and PKCE. It returns where to send the browser.
func (s *Service) BeginOAuth(ctx context.Context, server string) (string, error) {
	if !s.OAuthEnabled() {
		return "", ErrOAuthOff
	}
	a, serverURL, err := s.oauthServer(server)
	if err != nil {
		return "", err
	}
	meta, err := mcpauth.Discover(ctx, s.oauth.hc, serverURL)
	if err != nil {
		return "", invalid("Cannot authorize", fmt.Sprintf("%s: %v", server, err))
	}
	client, ok := catalogClient(a)
	if !ok {
		if prev, err := s.openCredential(ctx, server); err == nil && prev.Metadata.Issuer == meta.Issuer && prev.Client.ID != "" {
			client = prev.Client // registered before with this authorization server: reuse it
		} else if client, err = mcpauth.Register(ctx, s.oauth.hc, meta, s.oauth.redirect, s.oauth.name); err != nil {
			return "", invalid("Cannot authorize", fmt.Sprintf("%s: %v", server, err))
		}
	}
	pkce := mcpauth.NewPKCE()
	st, err := json.Marshal(flowState{Server: server, URL: serverURL, Verifier: pkce.Verifier, Metadata: meta, Client: client,
		Expires: s.now().Add(oauthFlowWindow).UTC()})
	if err != nil {
		return "", fmt.Errorf("encode the OAuth state of %s: %w", server, err)
	}
	var scopes []string
	if o, ok := a.Raw["oauth"].(map[string]any); ok {
		if sc, ok := o["scopes"].([]any); ok {
			for _, v := range sc {
				if str, ok := v.(string); ok {
					scopes = append(scopes, str)
				}
			}
		}
	}
	if len(scopes) == 0 {
		scopes = meta.Scopes
	}
	return mcpauth.AuthorizeURL(meta, client, s.oauth.redirect, s.oauth.sealer.Seal(st, stateAD), pkce, scopes), nil
}

// OAuthCompletion is what a finished authorization did.
type OAuthCompletion struct {
	Server  string
	Resumed []int64 // sessions that were parked for it and now continue
}

// CompleteOAuth finishes the flow the callback received: it checks the state, exchanges the
// code, stores the sealed credential and resumes the sessions that waited for it. denied is the
// authorization server's error parameter (the human declined, or it failed).
func (s *Service) CompleteOAuth(ctx context.Context, state, code, denied string) (OAuthCompletion, error) {
	if !s.OAuthEnabled() {
		return OAuthCompletion{}, ErrOAuthOff
	}
	raw, err := s.oauth.sealer.Open(state, stateAD)
	var st flowState
	if err != nil || json.Unmarshal(raw, &st) != nil {
		return OAuthCompletion{}, invalid("Authorization failed", "the sign-in link is not one Zimmer issued; start again with Authorize")
	}
	if s.now().After(st.Expires) {
		return OAuthCompletion{}, invalid("Authorization failed", fmt.Sprintf("the sign-in for %s took longer than %s; start again with Authorize", st.Server, oauthFlowWindow))
	}
	if denied != "" {
		return OAuthCompletion{}, invalid("Authorization failed", fmt.Sprintf("%s's authorization server answered %q", st.Server, clip(denied, 100)))
	}
	if code == "" {
		return OAuthCompletion{}, invalid("Authorization failed", "the authorization server sent no code")
	}
	tok, err := mcpauth.Exchange(ctx, s.oauth.hc, st.Metadata, st.Client, code, s.oauth.redirect, st.Verifier, s.now())
	if err != nil {
		return OAuthCompletion{}, invalid("Authorization failed", fmt.Sprintf("%s: %v", st.Server, err))
	}
	if err := s.putCredential(ctx, st.Server, st.URL, storedCredential{Metadata: st.Metadata, Client: st.Client, Token: tok}); err != nil {
		return OAuthCompletion{}, err
	}
	s.log.Info("MCP server authorized over OAuth", "server", st.Server)
	resumed, err := s.resumeOAuthParked(ctx)
	if err != nil {
		s.log.Warn("authorized, but the sessions parked for it were not all resumed; restart them by hand", "server", st.Server, "err", err)
	}
	return OAuthCompletion{Server: st.Server, Resumed: resumed}, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func (s *Service) putCredential(ctx context.Context, server, serverURL string, c storedCredential) error {
	plain, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode the OAuth credential of %s: %w", server, err)
	}
	rec := graph.OAuthCredential{Server: server, URL: serverURL, Sealed: s.oauth.sealer.Seal(plain, credentialAD(server)),
		Refreshable: c.Token.RefreshToken != ""}
	if !c.Token.ExpiresAt.IsZero() {
		at := c.Token.ExpiresAt
		rec.ExpiresAt = &at
	}
	return s.store.PutOAuthCredential(ctx, rec)
}

// openCredential reads and decrypts a server's credential.
func (s *Service) openCredential(ctx context.Context, server string) (storedCredential, error) {
	rec, err := s.store.OAuthCredential(ctx, server)
	if err != nil {
		return storedCredential{}, err
	}
	return s.unseal(rec)
}

func (s *Service) unseal(rec graph.OAuthCredential) (storedCredential, error) {
	var c storedCredential
	plain, err := s.oauth.sealer.Open(rec.Sealed, credentialAD(rec.Server))
	if err != nil {
		return c, fmt.Errorf("the OAuth credential of %s: %w", rec.Server, err)
	}
	if err := json.Unmarshal(plain, &c); err != nil {
		return c, fmt.Errorf("the OAuth credential of %s: %w", rec.Server, mcpauth.ErrUnsealable)
	}
	return c, nil
}

// refresh renews one stored credential. A refresh the provider refuses retires the credential
// (the server then needs authorization again); any other failure leaves it for the next try.
func (s *Service) refresh(ctx context.Context, rec graph.OAuthCredential) (storedCredential, error) {
	c, err := s.unseal(rec)
	if err != nil {
		return c, err
	}
	tok, err := mcpauth.Refresh(ctx, s.oauth.hc, c.Metadata, c.Client, c.Token.RefreshToken, s.now())
	if errors.Is(err, mcpauth.ErrGrantRejected) {
		if derr := s.store.DeleteOAuthCredential(ctx, rec.Server, rec.Sealed); derr != nil {
			return c, errors.Join(err, derr)
		}
		s.log.Warn("the OAuth refresh was refused; the server needs authorizing again", "server", rec.Server)
		return c, fmt.Errorf("refresh the OAuth token of %s: %w", rec.Server, err)
	}
	if err != nil {
		return c, fmt.Errorf("refresh the OAuth token of %s: %w", rec.Server, err)
	}
	c.Token = tok
	return c, s.putCredential(ctx, rec.Server, rec.URL, c)
}

// OAuthRefreshed is what one refresh pass did.
type OAuthRefreshed struct {
	Renewed, Retired, Failed int
}

// RefreshOAuthCredentials renews every refreshable credential that expires within ahead (the
// periodic refresh job), so a session never starts on a token about to die.
func (s *Service) RefreshOAuthCredentials(ctx context.Context, ahead time.Duration) (OAuthRefreshed, error) {
	var out OAuthRefreshed
	if !s.OAuthEnabled() {
		return out, nil
	}
	list, err := s.store.OAuthCredentials(ctx)
	if err != nil {
		return out, err
	}
	horizon := s.now().Add(ahead)
	for _, rec := range list {
		if !rec.Refreshable || rec.ExpiresAt == nil || rec.ExpiresAt.After(horizon) {
			continue
		}
		_, err := s.refresh(ctx, rec)
		switch {
		case err == nil:
			out.Renewed++
		case errors.Is(err, mcpauth.ErrGrantRejected):
			out.Retired++
		default:
			out.Failed++
			s.log.Warn("OAuth token not refreshed; the next pass tries again", "server", rec.Server, "err", err)
		}
	}
	return out, nil
}

// OAuthMissing is a server a session cannot start with: it has no usable OAuth credential.
type OAuthMissing struct {
	Server, URL, Error string
}

// OAuthGate is the pre-spawn check: for every OAuth-capable server among servers it returns the
// bearer token to hand the runtime (renewing an expired one first), and the servers that have
// none, which park the session.
func (s *Service) OAuthGate(ctx context.Context, servers []string) (tokens map[string]catalog.OAuthToken, missing []OAuthMissing) {
	cat := s.Catalog()
	tokens = map[string]catalog.OAuthToken{}
	for _, id := range servers {
		a, ok := cat.MCPServers[id]
		if !ok || !a.OAuthCapable() || a.Unavailable != "" {
			continue
		}
		u, _ := a.Raw["url"].(string)
		tok, err := s.usableToken(ctx, id)
		if err != nil {
			missing = append(missing, OAuthMissing{Server: id, URL: u, Error: err.Error()})
			continue
		}
		tokens[id] = tok
	}
	return tokens, missing
}

func (s *Service) usableToken(ctx context.Context, server string) (catalog.OAuthToken, error) {
	if !s.OAuthEnabled() {
		return catalog.OAuthToken{}, ErrOAuthOff
	}
	rec, err := s.store.OAuthCredential(ctx, server)
	if errors.Is(err, graph.ErrNotFound) {
		return catalog.OAuthToken{}, errors.New("OAuth authorization not completed")
	}
	if err != nil {
		return catalog.OAuthToken{}, err
	}
	var c storedCredential
	switch credentialState(rec, s.now()) {
	case catalog.CredentialActive:
		c, err = s.unseal(rec)
	case catalog.CredentialExpiredRefreshable:
		c, err = s.refresh(ctx, rec)
	default:
		return catalog.OAuthToken{}, errors.New("OAuth token expired and cannot be refreshed")
	}
	return catalog.OAuthToken{AccessToken: c.Token.AccessToken, ExpiresAt: c.Token.ExpiresAt, ClientID: c.Client.ID, Scope: c.Token.Scope}, err
}

// ParkForOAuth fails the session's turn before the agent runs because servers need
// authorization; completing it at /connectors resumes the session.
func (s *Service) ParkForOAuth(ctx context.Context, sessionID int64, taskID string, missing []OAuthMissing) error {
	var names []string
	list := make([]any, len(missing))
	for i, m := range missing {
		names = append(names, m.Server)
		list[i] = map[string]any{"server_name": m.Server, "server_url": m.URL, "error": m.Error}
	}
	_, err := s.FailRun(ctx, sessionID, taskID, Failure{Reason: FailureOAuthRequired,
		Message: fmt.Sprintf("MCP server(s) %s need OAuth authorization; authorize them at /connectors and the session continues", strings.Join(names, ", ")),
		Details: map[string]any{session.MetaOAuthRequiredServers: list}})
	return err
}

// maxParked bounds one resume pass.
const maxParked = 500

// resumeOAuthParked restarts every session parked for OAuth whose servers all have usable
// credentials now; one still waiting on another server stays parked.
func (s *Service) resumeOAuthParked(ctx context.Context) ([]int64, error) {
	ids, err := s.store.OAuthParkedSessions(ctx, maxParked)
	if err != nil {
		return nil, err
	}
	var resumed []int64
	var errs []error
	for _, id := range ids {
		sess, err := s.store.GetSession(ctx, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !s.oauthSatisfied(ctx, sess) {
			continue
		}
		if _, err := s.Restart(ctx, id); err != nil {
			errs = append(errs, fmt.Errorf("resume session %d: %w", id, err))
			continue
		}
		s.timeline(ctx, id, session.LogInfo, "Resumed: the MCP servers it waited for are authorized")
		resumed = append(resumed, id)
	}
	return resumed, errors.Join(errs...)
}

// oauthSatisfied: every server the session parked for now has a credential the gate accepts.
func (s *Service) oauthSatisfied(ctx context.Context, sess *session.Session) bool {
	waiting, _ := sess.Metadata[session.MetaOAuthRequiredServers].([]any)
	for _, w := range waiting {
		m, _ := w.(map[string]any)
		st, err := s.CredentialState(ctx, session.BagString(m, "server_name"))
		if err != nil || !slices.Contains([]catalog.CredentialState{catalog.CredentialActive, catalog.CredentialExpiredRefreshable}, st) {
			return false
		}
	}
	return len(waiting) > 0
}
