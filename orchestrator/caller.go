package orchestrator

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
)

// Credential is the kind of credential a request authenticated with.
type Credential string

// Credentials: an operator's fleet key (API_KEYS), or a session's own capability token.
const (
	CredentialFleetKey     Credential = "fleet_key"
	CredentialSessionToken Credential = "session_token"
)

// Caller is who a request authenticated as: a fleet key establishes a caller but no session;
// a session token establishes the session (SessionID).
type Caller struct {
	Credential Credential
	SessionID  int64 // the token's session; 0 for a fleet key
	// KeyDigest names the credential without holding it (CallerDigest): the health actions'
	// cooldown is per key, the same on every surface.
	KeyDigest string
}

// Session reports the session the caller is proven to be, if any.
func (c Caller) Session() (int64, bool) {
	return c.SessionID, c.Credential == CredentialSessionToken && c.SessionID != 0
}

type callerKey struct{}

// WithCaller carries the authenticated caller to every operation the request reaches.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom is the request's authenticated caller; a context that carries none (the web UI,
// Slack, the worker) is no session.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// SessionTokenPrefix starts every session token, so a token is told from a fleet key at a glance
// (and by a secret scanner).
const SessionTokenPrefix = "zst_"

// IssueSessionToken gives a session a fresh random capability token and returns it; the store
// keeps only its digest, and the previous token stops working. The runner calls it at every
// turn's claim, so a restart (or any new turn) rotates it.
func (s *Service) IssueSessionToken(ctx context.Context, id int64) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("issue a token for session %d: %w", id, err)
	}
	token := SessionTokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	if err := s.store.IssueSessionToken(ctx, id, tokenDigest(token)); err != nil {
		return "", err
	}
	return token, nil
}

// ErrUnknownToken is a token that authenticates nobody: never issued, rotated away, revoked, or
// its session archived or deleted.
var ErrUnknownToken = errors.New("unknown session token")

// AuthenticateToken returns the session a token authenticates as.
func (s *Service) AuthenticateToken(ctx context.Context, token string) (int64, error) {
	if !strings.HasPrefix(token, SessionTokenPrefix) {
		return 0, ErrUnknownToken
	}
	id, err := s.store.SessionByToken(ctx, tokenDigest(token))
	if errors.Is(err, graph.ErrNotFound) {
		return 0, ErrUnknownToken
	}
	return id, err
}

func tokenDigest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// revokeToken takes an archived session's token away; the lookup refuses an archived session's
// token anyway, so a failure here is logged, not returned.
func (s *Service) revokeToken(ctx context.Context, id int64) {
	if err := s.store.RevokeSessionToken(ctx, id); err != nil {
		s.log.Warn("session archived but its token was not revoked (an archived session's token is refused regardless)", "session_id", id, "err", err)
	}
}

// vouch checks a session the caller declares itself to be or to act for (acting_session_id,
// parent_session_id; name is the argument). A fleet-key caller is trusted as before; a session
// token may name only its own session or one it spawned, at any depth.
func (s *Service) vouch(ctx context.Context, name, declared string) error {
	caller, ok := CallerFrom(ctx).Session()
	if !ok {
		return nil
	}
	id, parsed := session.ParseID(declared)
	if !parsed || id == caller {
		return nil
	}
	spawned, err := s.store.SpawnedBy(ctx, caller, id)
	if err != nil {
		return err
	}
	if spawned {
		return nil
	}
	return invalid("Not your session", fmt.Sprintf(
		"%s #%d is neither this session (#%d) nor a session it spawned: a session token may act only as its own session or one of its descendants, so nothing was written (no uncle edge, no delivery).",
		name, id, caller))
}

// sourceWithCredential marks an uncle edge's source with the credential that wrote it.
func sourceWithCredential(ctx context.Context, source string) string {
	switch c := CallerFrom(ctx); c.Credential {
	case CredentialSessionToken:
		return fmt.Sprintf("%s (session token of #%d)", source, c.SessionID)
	case CredentialFleetKey:
		return source + " (fleet key)"
	}
	return source
}
