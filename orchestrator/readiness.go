package orchestrator

import (
	"context"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/session"
)

// Readiness is every catalog MCP server's readiness now, from local signals only, with the
// catalog snapshot it was computed from.
func (s *Service) Readiness() (*catalog.Catalog, map[string]catalog.Readiness) {
	cat := s.Catalog()
	// The read paths that ask carry no context; a bounded one keeps a slow graph from holding
	// them (a credential read that times out reports "could not find out", never a block).
	ctx, cancel := context.WithTimeout(context.Background(), readinessTimeout)
	defer cancel()
	return cat, cat.Readiness(ctx, s.vars)
}

// readinessTimeout bounds the credential reads of one readiness answer.
const readinessTimeout = 5 * time.Second

// ServerWarning is the sentence a creation path says about the session's servers that cannot
// start right now ("" when every one can): the ones it selected and the ones its plugins bundle.
func (s *Service) ServerWarning(sess *session.Session) string {
	cat, ready := s.Readiness()
	return catalog.Warning(cat.Expand(sess.MCPServers, nil, nil, sess.CatalogPlugins).MCPServers, ready)
}

// warnUnstartable checks the servers a new session ended up with (its root's defaults
// included) and writes the warning to the session's log. It is advice: whatever goes wrong
// inside it, the session is created exactly as it would have been.
func (s *Service) warnUnstartable(ctx context.Context, sess *session.Session) (warning string) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("MCP readiness check failed; the session was created without it", "session_id", sess.ID, "panic", r)
			warning = ""
		}
	}()
	warning = s.ServerWarning(sess)
	if warning != "" {
		s.timeline(ctx, sess.ID, session.LogWarning, warning)
	}
	return warning
}
