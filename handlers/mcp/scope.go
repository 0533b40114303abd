package mcp

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/session"
)

// Tool groups. The four base groups are what a connection gets when it names none; the opt-in
// groups are valid and addressable but never handed out by default (their write tools must not
// ride along on a plain /mcp); self_session is a composite that borrows tools from the domains.
const (
	groupSessions      = "sessions"
	groupNotifications = "notifications"
	groupTriggers      = "triggers"
	groupHealth        = "health"
	groupGateDecisions = "gate_decisions"
	groupWorkBacklog   = "work_backlog"
	compositeSelf      = "self_session"
	readonlySuffix     = "_readonly"
)

var (
	baseGroups   = []string{groupSessions, groupNotifications, groupTriggers, groupHealth}
	optInGroups  = []string{groupGateDecisions, groupWorkBacklog}
	domainGroups = append(slices.Clone(baseGroups), optInGroups...)
	validGroups  = func() map[string]bool {
		valid := map[string]bool{compositeSelf: true}
		for _, g := range domainGroups {
			valid[g], valid[g+readonlySuffix] = true, true
		}
		return valid
	}()
)

// Scope is what a connection's URL says it may see and who it is. It comes from the query
// string only — a tool_groups or allowed_agent_roots in the JSON body is never read — and it is
// an affordance, not a trust boundary: any key holder can ask for a different URL.
type Scope struct {
	// Groups are the enabled groups, valid names only, first occurrence order kept.
	Groups []string
	// Roots fences what the connection may spawn (allowed_agent_roots); nil is unrestricted.
	Roots []string
	// SessionID is the calling session the URL names (session_id); 0 when none. It grants no
	// tool: it defaults omitted session arguments on the self tools and answers "is this caller
	// the session it acts on".
	SessionID int64
	// Verified is set when SessionID comes from the session's own token rather than the URL:
	// the self_session tools then act on that session only.
	Verified bool
}

// pin makes a session token's session the connection's. A session_id in the URL naming any
// other session is refused rather than ignored: the token, not the URL, says who is calling.
func (s *Scope) pin(q url.Values, id int64) *rpcError {
	if raw := strings.TrimSpace(q.Get("session_id")); raw != "" {
		if named, ok := session.ParseID(raw); !ok || named != id {
			return &rpcError{status: http.StatusForbidden, code: codeInvalidRequest, message: fmt.Sprintf(
				"Forbidden: this connection's URL names a session_id other than #%d, the session its token belongs to; a session token acts only as its own session.", id)}
		}
	}
	s.SessionID, s.Verified = id, true
	return nil
}

// Restricted reports a connection fenced to specific agent roots.
func (s *Scope) Restricted() bool { return s.Roots != nil }

// AllowsRoot reports whether the fence admits root (always true when unrestricted).
func (s *Scope) AllowsRoot(root string) bool {
	return !s.Restricted() || slices.Contains(s.Roots, root)
}

// IsCaller reports whether the connection is stamped as session id.
func (s *Scope) IsCaller(id int64) bool { return s.SessionID != 0 && s.SessionID == id }

// parseScope reads the three query parameters. Unknown groups are dropped with a warning, never
// an error; a list naming only unknown groups leaves the connection with no tools at all rather
// than falling back to the defaults, since a caller that asked for something specific must not
// silently be handed everything.
func parseScope(q url.Values, log *slog.Logger) *Scope {
	s := &Scope{}
	named := listParam(q, "tool_groups")
	if len(named) == 0 {
		s.Groups = slices.Clone(baseGroups)
	} else {
		s.Groups = []string{}
		for _, g := range named {
			switch {
			case !validGroups[g]:
				log.Warn("mcp: unknown tool group dropped", "group", g)
			case !slices.Contains(s.Groups, g):
				s.Groups = append(s.Groups, g)
			}
		}
	}
	if roots := listParam(q, "allowed_agent_roots"); len(roots) > 0 {
		s.Roots = roots
	}
	if raw := strings.TrimSpace(q.Get("session_id")); raw != "" {
		if id, ok := session.ParseID(raw); ok {
			s.SessionID = id
		} else {
			log.Warn("mcp: session_id in the URL is not a session id; ignored", "session_id", raw)
		}
	}
	return s
}

// listParam reads a comma-separated parameter, or its array form name[]=a&name[]=b; a plain
// repeated name= keeps only the last, as Rails does. Entries are trimmed, empties dropped.
func listParam(q url.Values, name string) []string {
	values := q[name+"[]"]
	if len(values) == 0 {
		if v := q[name]; len(v) > 0 {
			values = v[len(v)-1:]
		}
	}
	var out []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// instructions is the initialize result's instructions for the enabled groups, in order.
func instructions(groups []string) string {
	return "Zimmer's native MCP server. Tools operate on this Zimmer instance's sessions, notifications, " +
		"triggers, and system health. Enabled tool groups: " + strings.Join(groups, ", ") + "."
}
