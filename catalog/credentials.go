package catalog

import (
	"context"
	"strings"
)

// CredentialState is what the stored OAuth credential of an MCP server allows.
type CredentialState string

// The stored credential's states.
const (
	CredentialNone               CredentialState = "none"                // never authorized (or retired)
	CredentialActive             CredentialState = "active"              // usable now
	CredentialExpiredRefreshable CredentialState = "expired_refreshable" // expired, with a refresh token the refresh job renews
	CredentialExpired            CredentialState = "expired"             // expired, nothing to renew it with
)

// CredentialStore answers for the OAuth credential Zimmer holds for a server.
type CredentialStore interface {
	CredentialState(ctx context.Context, server string) (CredentialState, error)
}

// The short reasons of the OAuth states.
const (
	reasonNeedsAuthorization = "OAuth authorization not completed"
	reasonNeedsReauth        = "OAuth token expired and cannot be refreshed"
	// noOAuthStore is said of every OAuth server when Zimmer has no key to store credentials with.
	noOAuthStore = "OAuth authorization not completed (set ZIMMER_SECRET_KEY so Zimmer can store OAuth credentials)"
)

// OAuthCapable reports whether a server may need an OAuth flow: a remote entry that carries no
// static Authorization header and either declares an oauth object or sends no static headers at
// all (an entry that authenticates with a header of its own, like Zimmer's X-API-Key, does not).
func (a *Artifact) OAuthCapable() bool {
	s := serverFromMap(a.Raw, nil)
	if s.URL == "" || s.Type == "stdio" {
		return false
	}
	for k := range s.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	_, declared := a.Raw["oauth"].(map[string]any)
	return declared || len(s.Headers) == 0
}

// oauthReadiness is an OAuth-capable server's state from its stored credential. A store that
// could not answer is "could not find out", which never blocks.
func oauthReadiness(ctx context.Context, store CredentialStore, server string) Readiness {
	if store == nil {
		return Readiness{StateNeedsAuthorization, noOAuthStore}
	}
	st, err := store.CredentialState(ctx, server)
	if err != nil {
		return Readiness{State: StateProbeFailed}
	}
	switch st {
	case CredentialActive:
		return Readiness{State: StateReady}
	case CredentialExpiredRefreshable:
		return Readiness{State: StateTokenExpired}
	case CredentialExpired:
		return Readiness{StateNeedsReauth, reasonNeedsReauth}
	}
	return Readiness{StateNeedsAuthorization, reasonNeedsAuthorization}
}
