// Package mcpauth is Zimmer's client side of the MCP authorization flow for remote MCP servers:
// protected-resource metadata discovery (RFC 9728), authorization-server metadata discovery
// (RFC 8414, with the OpenID Connect fallbacks), dynamic client registration (RFC 7591), the
// authorization code grant with PKCE S256, and refresh; plus the AES-GCM sealing that keeps
// credentials encrypted at rest. It talks HTTP only and stores nothing: the orchestrator keeps
// the sealed credentials in the graph.
package mcpauth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	// ErrGrantRejected means the authorization server refused a code or refresh token
	// (invalid_grant): the credential is dead and a human has to authorize again.
	ErrGrantRejected = errors.New("the authorization server rejected the grant")
	// ErrNoOAuth means the server publishes no usable OAuth discovery.
	ErrNoOAuth = errors.New("the server publishes no OAuth discovery Zimmer can use")
)

// Metadata is what discovery found: the resource (the MCP server's canonical URI, sent as the
// RFC 8707 resource parameter) and its authorization server's endpoints.
type Metadata struct {
	Resource              string   `json:"resource"`
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	RegistrationEndpoint  string   `json:"registration_endpoint,omitempty"`
	Scopes                []string `json:"scopes,omitempty"`
}

// Client is an OAuth client registration: pre-registered in the catalog entry's oauth object or
// obtained by dynamic registration.
type Client struct {
	ID         string `json:"client_id"`
	Secret     string `json:"client_secret,omitempty"`
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"` // none, client_secret_post, client_secret_basic
}

// Token is a grant's result. A zero ExpiresAt means the server named no lifetime.
type Token struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	Scope        string    `json:"scope,omitempty"`
}

// maxBody bounds what is read of any discovery or token response.
const maxBody = 1 << 20

// resourceMetadataParam finds resource_metadata in a WWW-Authenticate challenge.
var resourceMetadataParam = regexp.MustCompile(`resource_metadata="([^"]+)"`)

// Discover finds the server's authorization server: the resource_metadata its 401 challenge
// names, else the well-known protected-resource documents (path-specific, then root); then that
// authorization server's metadata. The authorization server must support PKCE with S256.
func Discover(ctx context.Context, hc *http.Client, serverURL string) (Metadata, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Metadata{}, fmt.Errorf("%w: %q is not an http(s) URL", ErrNoOAuth, serverURL)
	}
	candidates := wellKnown(u, "oauth-protected-resource")
	if named := challengedMetadata(ctx, hc, serverURL); named != "" {
		candidates = append([]string{named}, candidates...)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if !firstDocument(ctx, hc, candidates, &prm) || len(prm.AuthorizationServers) == 0 {
		return Metadata{}, fmt.Errorf("%w: no protected-resource metadata naming an authorization server at %s", ErrNoOAuth, u.Host)
	}
	issuer, err := url.Parse(prm.AuthorizationServers[0])
	if err != nil || issuer.Host == "" {
		return Metadata{}, fmt.Errorf("%w: authorization server %q is not a URL", ErrNoOAuth, prm.AuthorizationServers[0])
	}
	var as struct {
		Issuer                        string   `json:"issuer"`
		AuthorizationEndpoint         string   `json:"authorization_endpoint"`
		TokenEndpoint                 string   `json:"token_endpoint"`
		RegistrationEndpoint          string   `json:"registration_endpoint"`
		ScopesSupported               []string `json:"scopes_supported"`
		CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported"`
	}
	asDocs := append(wellKnown(issuer, "oauth-authorization-server"), wellKnown(issuer, "openid-configuration")...)
	if issuer.Path != "" && issuer.Path != "/" {
		asDocs = append(asDocs, strings.TrimSuffix(issuer.String(), "/")+"/.well-known/openid-configuration")
	}
	if !firstDocument(ctx, hc, asDocs, &as) || as.AuthorizationEndpoint == "" || as.TokenEndpoint == "" {
		return Metadata{}, fmt.Errorf("%w: no authorization-server metadata at %s", ErrNoOAuth, issuer.Host)
	}
	if !slices.Contains(as.CodeChallengeMethodsSupported, "S256") {
		return Metadata{}, fmt.Errorf("%w: the authorization server at %s does not support PKCE with S256", ErrNoOAuth, issuer.Host)
	}
	m := Metadata{Resource: cmp.Or(prm.Resource, canonical(u)), Issuer: cmp.Or(as.Issuer, issuer.String()),
		AuthorizationEndpoint: as.AuthorizationEndpoint, TokenEndpoint: as.TokenEndpoint,
		RegistrationEndpoint: as.RegistrationEndpoint, Scopes: prm.ScopesSupported}
	return m, nil
}

// wellKnown lists a well-known document's locations for u: with u's path inserted after the
// well-known segment (RFC 8414 §3.1, RFC 9728 §3.1), then at the root.
func wellKnown(u *url.URL, name string) []string {
	origin := u.Scheme + "://" + u.Host
	var out []string
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		out = append(out, origin+"/.well-known/"+name+p)
	}
	return append(out, origin+"/.well-known/"+name)
}

// canonical is the server URL without query or fragment (the MCP spec's canonical resource URI).
func canonical(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment = "", ""
	return c.String()
}

// challengedMetadata asks the server unauthenticated and returns the resource_metadata URL its
// 401 names ("" when it names none or does not answer 401).
func challengedMetadata(ctx context.Context, hc *http.Client, serverURL string) string {
	body := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, body)
	if err != nil {
		return ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusUnauthorized {
		return ""
	}
	if m := resourceMetadataParam.FindStringSubmatch(resp.Header.Get("WWW-Authenticate")); m != nil {
		return m[1]
	}
	return ""
}

// firstDocument decodes the first candidate that answers 200 with JSON into v.
func firstDocument(ctx context.Context, hc *http.Client, candidates []string, v any) bool {
	for _, c := range candidates {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c, nil)
		if err != nil {
			continue
		}
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			continue
		}
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(v) == nil
		drain(resp)
		if ok {
			return true
		}
	}
	return false
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
}

// Register registers Zimmer as a public client with redirectURI (RFC 7591).
func Register(ctx context.Context, hc *http.Client, m Metadata, redirectURI, clientName string) (Client, error) {
	if m.RegistrationEndpoint == "" {
		return Client{}, fmt.Errorf("%w: the authorization server offers no dynamic client registration; set oauth.client_id on the catalog entry", ErrNoOAuth)
	}
	body, _ := json.Marshal(map[string]any{"client_name": clientName, "redirect_uris": []string{redirectURI},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.RegistrationEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return Client{}, fmt.Errorf("register with %s: %w", m.Issuer, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Client{}, fmt.Errorf("register with %s: %w", m.Issuer, err)
	}
	defer drain(resp)
	var c Client
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return Client{}, fmt.Errorf("register with %s: %s", m.Issuer, oauthError(resp))
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&c); err != nil || c.ID == "" {
		return Client{}, fmt.Errorf("register with %s: the answer carries no client_id", m.Issuer)
	}
	return c, nil
}

// PKCE is one authorization attempt's verifier and its S256 challenge.
type PKCE struct{ Verifier, Challenge string }

// NewPKCE draws a verifier (43 characters of base64url from 32 random bytes).
func NewPKCE() PKCE {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(v))
	return PKCE{Verifier: v, Challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// AuthorizeURL is where the human's browser goes to consent.
func AuthorizeURL(m Metadata, c Client, redirectURI, state string, p PKCE, scopes []string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {redirectURI}, "state": {state},
		"code_challenge": {p.Challenge}, "code_challenge_method": {"S256"}, "resource": {m.Resource}}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	sep := "?"
	if strings.Contains(m.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	return m.AuthorizationEndpoint + sep + q.Encode()
}

// Exchange trades an authorization code for a token.
func Exchange(ctx context.Context, hc *http.Client, m Metadata, c Client, code, redirectURI, verifier string, now time.Time) (Token, error) {
	return grant(ctx, hc, m, c, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirectURI}, "code_verifier": {verifier}}, now)
}

// Refresh renews a token; a server that rotates refresh tokens returns a new one, else the old
// one is kept.
func Refresh(ctx context.Context, hc *http.Client, m Metadata, c Client, refreshToken string, now time.Time) (Token, error) {
	t, err := grant(ctx, hc, m, c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}}, now)
	if err == nil && t.RefreshToken == "" {
		t.RefreshToken = refreshToken
	}
	return t, err
}

func grant(ctx context.Context, hc *http.Client, m Metadata, c Client, form url.Values, now time.Time) (Token, error) {
	form.Set("resource", m.Resource)
	if c.AuthMethod != "client_secret_basic" {
		form.Set("client_id", c.ID)
		if c.Secret != "" {
			form.Set("client_secret", c.Secret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return Token{}, fmt.Errorf("token request to %s: %w", m.Issuer, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.AuthMethod == "client_secret_basic" {
		req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Token{}, fmt.Errorf("token request to %s: %w", m.Issuer, err)
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		msg := oauthError(resp)
		if strings.HasPrefix(msg, "invalid_grant") {
			return Token{}, fmt.Errorf("%w (%s)", ErrGrantRejected, msg)
		}
		return Token{}, fmt.Errorf("token request to %s: %s", m.Issuer, msg)
	}
	var raw struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int64  `json:"expires_in"`
		Scope        string `json:"scope"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&raw); err != nil || raw.AccessToken == "" {
		return Token{}, fmt.Errorf("token request to %s: the answer carries no access_token", m.Issuer)
	}
	if !strings.EqualFold(raw.TokenType, "bearer") {
		return Token{}, fmt.Errorf("token request to %s: token_type %q is not Bearer", m.Issuer, raw.TokenType)
	}
	t := Token{AccessToken: raw.AccessToken, RefreshToken: raw.RefreshToken, Scope: raw.Scope}
	if raw.ExpiresIn > 0 {
		t.ExpiresAt = now.Add(time.Duration(raw.ExpiresIn) * time.Second).UTC()
	}
	return t, nil
}

// oauthError is an error response's code and description (RFC 6749 §5.2), never its other
// content: an echo of a token or secret must not reach a log.
func oauthError(resp *http.Response) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "application/json" {
		_ = json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&e)
	}
	if e.Error == "" {
		return fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	if e.Description != "" {
		return e.Error + ": " + truncate(e.Description, 200)
	}
	return e.Error
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
