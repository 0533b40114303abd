package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// session resolves a session by id or slug: an unknown one is "Session not found: <key>".
func (c *call) session(ctx context.Context, key string) (*session.Session, error) {
	if key == "" {
		return nil, fail("Missing required parameter: session_id")
	}
	s, err := c.h.ops.Get(ctx, key)
	if errors.Is(err, orchestrator.ErrNotFound) {
		return nil, fail("Session not found: %s", key)
	}
	if err != nil {
		return nil, fmt.Errorf("look up session %q: %w", key, err)
	}
	return s, nil
}

// sessionArg resolves the session argument k, which must be given.
func (c *call) sessionArg(ctx context.Context, k string) (*session.Session, error) {
	key := c.args.text(k)
	if key == "" {
		return nil, fail("Missing required parameter: %s", k)
	}
	return c.session(ctx, key)
}

// selfKey is argument k, defaulting to the session the connection's URL names: the only place
// a stateless call's caller is known. An explicit value always wins.
func (c *call) selfKey(k string) (string, error) {
	key := c.args.text(k)
	if key == "" && c.scope.SessionID != 0 {
		key = strconv.FormatInt(c.scope.SessionID, 10)
	}
	if key == "" {
		return "", fail("Missing required parameter: %s. This connection's URL names no session_id, so it cannot default to the calling session; pass your own session id.", k)
	}
	return key, nil
}

// selfSession resolves the session selfKey names.
func (c *call) selfSession(ctx context.Context, k string) (*session.Session, error) {
	key, err := c.selfKey(k)
	if err != nil {
		return nil, err
	}
	return c.session(ctx, key)
}

// ownSession is selfSession for actions a session may only take for itself: on a connection
// stamped with a session_id, an explicit argument naming another session is refused.
func (c *call) ownSession(ctx context.Context, k string) (*session.Session, error) {
	s, err := c.selfSession(ctx, k)
	if err != nil {
		return nil, err
	}
	if c.scope.SessionID != 0 && s.ID != c.scope.SessionID {
		return nil, fail("%s must be this connection's own session (#%d): session #%d is another session, and a session may only do this for itself.",
			k, c.scope.SessionID, s.ID)
	}
	return s, nil
}

// rootOf is the agent root a session's row names ("" when none).
func rootOf(s *session.Session) string {
	root, _ := s.Metadata["agent_root_key"].(string)
	return root
}

// allowedList is the fence for messages: "a, b".
func (c *call) allowedList() string { return strings.Join(c.scope.Roots, ", ") }

// fenceRoot admits an agent root a restricted connection may spawn on.
func (c *call) fenceRoot(root string) error {
	if !c.scope.Restricted() {
		return nil
	}
	if root == "" {
		return fail("This MCP connection is restricted to specific agent roots — agent_root is required. Allowed agent roots: %s", c.allowedList())
	}
	if !c.scope.AllowsRoot(root) {
		return fail("This MCP connection is restricted — agent root %q is not permitted. Allowed agent roots: %s", root, c.allowedList())
	}
	return nil
}

// fenceSession admits acting on an existing session only when its row names an allowed agent
// root that the catalog still has: a fence that admits what it cannot place is not a fence.
func (c *call) fenceSession(s *session.Session, verb string) error {
	if !c.scope.Restricted() {
		return nil
	}
	root := rootOf(s)
	var why string
	switch {
	case root == "":
		why = "names no agent root"
	case !c.scope.AllowsRoot(root):
		why = fmt.Sprintf("belongs to agent root %q, which is not in the allowed list", root)
	case c.h.ops.Catalog().Roots[root] == nil:
		why = fmt.Sprintf("belongs to agent root %q, which the catalog no longer has", root)
	default:
		return nil
	}
	return fail("This MCP connection is restricted to specific agent roots — session #%d %s, so this connection may not %s it. Allowed agent roots: %s",
		s.ID, why, verb, c.allowedList())
}

func idOf(s *session.Session) string { return strconv.FormatInt(s.ID, 10) }

func isNotFound(err error) bool { return errors.Is(err, orchestrator.ErrNotFound) }
