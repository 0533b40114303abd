// Package mcpauthtest runs, for tests, a local OAuth authorization server and an MCP resource
// server it protects, both on httptest servers: protected-resource and authorization-server
// metadata, dynamic client registration, an authorization endpoint that consents at once
// (redirecting with a code), a token endpoint that checks PKCE S256, the redirect URI and the
// resource, and an MCP endpoint that answers 401 with a resource_metadata challenge unless it
// gets a live bearer token, offering one tool, whoami.
package mcpauthtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is the pair. Set the exported knobs before the flow they affect.
type Server struct {
	AS, MCP *httptest.Server

	mu sync.Mutex
	// Lifetime is each access token's expires_in (an hour unless set).
	Lifetime time.Duration
	// NoRefresh issues no refresh tokens; RejectRefresh answers every refresh with invalid_grant.
	NoRefresh, RejectRefresh bool
	clients                  map[string]string // client_id → redirect_uri
	codes                    map[string]grant
	access                   map[string]time.Time // access token → expiry (wall clock of this server)
	refresh                  map[string]string    // refresh token → client_id
	Registrations, Refreshes int
}

type grant struct{ client, redirect, challenge, resource string }

// Start runs both servers until the test ends.
func Start(t testing.TB) *Server {
	s := &Server{Lifetime: time.Hour, clients: map[string]string{}, codes: map[string]grant{}, access: map[string]time.Time{},
		refresh: map[string]string{}}
	s.AS = httptest.NewServer(http.HandlerFunc(s.serveAS))
	s.MCP = httptest.NewServer(http.HandlerFunc(s.serveMCP))
	t.Cleanup(func() { s.MCP.Close(); s.AS.Close() })
	return s
}

// URL is the MCP endpoint a catalog entry names.
func (s *Server) URL() string { return s.MCP.URL + "/mcp" }

// Set changes knobs under the server's lock.
func (s *Server) Set(fn func(*Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s)
}

// Counts reports registrations and refreshes so far.
func (s *Server) Counts() (registrations, refreshes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Registrations, s.Refreshes
}

// Live reports whether token is an access token this server issued and still honours.
func (s *Server) Live(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.access[token]
	return ok && time.Now().Before(exp)
}

// ExpireAll makes every access token issued so far dead (refresh tokens stay good).
func (s *Server) ExpireAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.access {
		s.access[k] = time.Time{}
	}
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthErr(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) serveAS(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		writeJSON(w, http.StatusOK, map[string]any{"issuer": s.AS.URL, "authorization_endpoint": s.AS.URL + "/authorize",
			"token_endpoint": s.AS.URL + "/token", "registration_endpoint": s.AS.URL + "/register",
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"}})
	case "/register":
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) != 1 {
			oauthErr(w, "invalid_client_metadata", "one redirect_uri")
			return
		}
		s.mu.Lock()
		id := "client-" + random()
		s.clients[id] = req.RedirectURIs[0]
		s.Registrations++
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		s.authorize(w, r)
	case "/token":
		s.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

// authorize consents at once: it checks the request and redirects with a code.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	redirect, known := s.clients[q.Get("client_id")]
	switch {
	case !known || redirect != q.Get("redirect_uri"):
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 is required", http.StatusBadRequest)
		return
	case q.Get("resource") != s.URL():
		http.Error(w, "resource must name the MCP server", http.StatusBadRequest)
		return
	}
	code := random()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	back, _ := url.Parse(redirect)
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthErr(w, "invalid_request", "form")
		return
	}
	f := r.PostForm
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Get("resource") != s.URL() {
		oauthErr(w, "invalid_target", "resource must name the MCP server")
		return
	}
	client := f.Get("client_id")
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		if !ok || g.client != client || g.redirect != f.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			oauthErr(w, "invalid_grant", "code, client, redirect_uri or PKCE verifier do not match")
			return
		}
	case "refresh_token":
		s.Refreshes++
		owner, ok := s.refresh[f.Get("refresh_token")]
		if s.RejectRefresh || !ok || owner != client {
			oauthErr(w, "invalid_grant", "refresh token revoked")
			return
		}
		delete(s.refresh, f.Get("refresh_token")) // rotated
	default:
		oauthErr(w, "unsupported_grant_type", f.Get("grant_type"))
		return
	}
	access := "at-" + random()
	s.access[access] = time.Now().Add(s.Lifetime)
	out := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.Lifetime / time.Second)}
	if !s.NoRefresh {
		rt := "rt-" + random()
		s.refresh[rt] = client
		out["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
		writeJSON(w, http.StatusOK, map[string]any{"resource": s.URL(), "authorization_servers": []string{s.AS.URL}})
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !s.Live(token) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, s.MCP.URL))
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
		return
	}
	var req struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	var result any
	switch req.Method {
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "whoami", "inputSchema": map[string]any{"type": "object"}}}}
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "authorized over OAuth"}}}
	default:
		result = map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// Consent follows an authorization URL as the human's browser would and returns the state and
// code the authorization server redirected back with.
func Consent(t testing.TB, authorizeURL string) (state, code string) {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(authorizeURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize answered %d, not a redirect", resp.StatusCode)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return back.Query().Get("state"), back.Query().Get("code")
}
