package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// resolve turns a session argument (an id, or a slug where the schema accepts one) into the
// session's id, once, here at the edge: an unknown one is "Session not found: <key>".
func (c *call) resolve(ctx context.Context, key string) (int64, error) {
	if key == "" {
		return 0, fail("Missing required parameter: session_id")
	}
	id, err := c.h.ops.Resolve(ctx, key)
	if isNotFound(err) {
		return 0, fail("Session not found: %s", key)
	}
	if err != nil {
		return 0, fmt.Errorf("resolve session %q: %w", key, err)
	}
	return id, nil
}

// session reads the session a key names.
func (c *call) session(ctx context.Context, key string) (*session.Session, error) {
	id, err := c.resolve(ctx, key)
	if err != nil {
		return nil, err
	}
	return c.sessionByID(ctx, id)
}

// sessionByID reads a session by id: a missing one is "Session not found: <id>".
func (c *call) sessionByID(ctx context.Context, id int64) (*session.Session, error) {
	s, err := c.h.ops.Get(ctx, id)
	if err != nil {
		return nil, sessionNotFound(err, id)
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

// selfID is the session argument k, defaulting to the session the connection's URL (or its
// token) names. An explicit value wins; on a token's self_session tools, pinned has already
// refused one naming another session.
func (c *call) selfID(ctx context.Context, k string) (int64, error) {
	if key := c.args.text(k); key != "" {
		return c.resolve(ctx, key)
	}
	if c.scope.SessionID != 0 {
		return c.scope.SessionID, nil
	}
	return 0, fail("Missing required parameter: %s. This connection's URL names no session_id, so it cannot default to the calling session; pass your own session id.", k)
}

// viewID is selfID for a tool whose one read says itself when the session is missing: an id is
// taken as given rather than checked by a round trip of its own first.
func (c *call) viewID(ctx context.Context, k string) (int64, error) {
	if id, ok := session.ParseID(c.args.text(k)); ok {
		return id, nil
	}
	return c.selfID(ctx, k)
}

// selfArgs are the arguments by which a self_session tool names the session it acts on.
var selfArgs = []string{"session_id", "id"}

// pinned refuses, on a self_session tool called with a session token, an argument naming any
// session but the caller: there the token, not the argument, says which session the tool acts
// on. It runs before every such tool, whatever the tool does with the argument.
func (c *call) pinned(ctx context.Context) error {
	if !c.self || !c.scope.Verified {
		return nil
	}
	for _, k := range selfArgs {
		key := c.args.text(k)
		if key == "" {
			continue
		}
		id, err := c.resolve(ctx, key)
		if err != nil {
			return err
		}
		if id != c.scope.SessionID {
			return fail("%s must be this session (#%d): a session token's self-session tools act only on the session the token belongs to, and session #%d is another.",
				k, c.scope.SessionID, id)
		}
	}
	return nil
}

// selfSession reads the session selfID names.
func (c *call) selfSession(ctx context.Context, k string) (*session.Session, error) {
	id, err := c.selfID(ctx, k)
	if err != nil {
		return nil, err
	}
	return c.sessionByID(ctx, id)
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
	root := s.AgentRoot()
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

func isNotFound(err error) bool { return errors.Is(err, orchestrator.ErrNotFound) }
