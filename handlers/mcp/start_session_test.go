package mcp_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
)

// startedID is the ID line of a start_session result.
func startedID(t *testing.T, text string) int64 {
	t.Helper()
	id, err := strconv.ParseInt(between(text, "- **ID:** ", "\n"), 10, 64)
	if err != nil {
		t.Fatalf("no ID in:\n%s", text)
	}
	return id
}

func TestStartSessionCreatesAndQueuesItsJob(t *testing.T) {
	t.Parallel()
	e := setup(t)
	text := e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "zimmer", "prompt": "do it", "title": "Started " + graphtest.Unique(t, "s")})
	contains(t, text, "## Session Started Successfully", "- **Status:** waiting", "- **Genesis:** api (spot)",
		"*The agent job has been queued and will start shortly.*", "/sessions/")
	s, err := e.ops.Get(context.Background(), startedID(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if s.MCPServers == nil || strings.Join(s.MCPServers, ",") != "playwright-custom" {
		t.Fatalf("omitted mcp_servers take the root's defaults; got %v", s.MCPServers)
	}
	clone := e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "zimmer", "mcp_servers": []any{}})
	contains(t, clone, "*No prompt was provided.")
	s, _ = e.ops.Get(context.Background(), startedID(t, clone))
	if len(s.MCPServers) != 0 {
		t.Fatalf("an explicit [] means none; got %v", s.MCPServers)
	}
}

func TestStartSessionChildInheritsFromItsParent(t *testing.T) {
	t.Parallel()
	e := setup(t)
	parent := e.fixture(t, nil)
	text := e.ok(t, "/mcp", "start_session", map[string]any{"git_root": "file:///tmp/repo", "agent_root": "zimmer", "parent_session_id": parent.ID})
	s, _ := e.ops.Get(context.Background(), startedID(t, text))
	if s.ParentSessionID == nil || *s.ParentSessionID != parent.ID || s.Precedence != parent.Precedence+1 {
		t.Fatalf("child: parent %v precedence %d", s.ParentSessionID, s.Precedence)
	}
}

func TestStartSessionRefusesWhatTheModelCanFix(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no repository", map[string]any{"prompt": "x"}, "Validation failed: Git root can't be blank"},
		{"unknown root", map[string]any{"agent_root": "nope"}, `Invalid agent_root: Unknown agent_root "nope"`},
		{"unknown skill", map[string]any{"agent_root": "zimmer", "skills": []any{"no-such-skill"}}, "catalog_skills names unknown catalog ids: no-such-skill"},
		{"place with precedence", map[string]any{"agent_root": "zimmer", "place": "top_of_spot", "precedence": 3}, "place and precedence are mutually exclusive"},
		{"precedence not an integer", map[string]any{"agent_root": "zimmer", "precedence": "high"}, `precedence must be an integer (got "high")`},
		{"precedence out of range", map[string]any{"agent_root": "zimmer", "precedence": 2000000000}, "precedence must be between -1000000000 and 1000000000"},
		{"unknown parent", map[string]any{"agent_root": "zimmer", "parent_session_id": 999999999}, "Parent session 999999999 not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, "/mcp", "start_session", c.args, c.want)
		})
	}
}

func TestStartSessionIsFencedByAllowedAgentRoots(t *testing.T) {
	t.Parallel()
	e := setup(t)
	fenced := "/mcp?tool_groups=sessions&allowed_agent_roots=zimmer,ghost"
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"agent_root is required", map[string]any{"git_root": "file:///tmp/repo"},
			"This MCP connection is restricted to specific agent roots — agent_root is required. Allowed agent roots: zimmer, ghost"},
		{"a root outside the list", map[string]any{"agent_root": "general-agent"},
			`This MCP connection is restricted — agent root "general-agent" is not permitted. Allowed agent roots: zimmer, ghost`},
		{"an allowed root the catalog lacks", map[string]any{"agent_root": "ghost"},
			`Agent root "ghost" is in the allowed list but was not found in the configuration. Available agent roots:`},
		{"adding a server", map[string]any{"agent_root": "zimmer", "mcp_servers": []any{"playwright-custom", "context7"}},
			`Agent root "zimmer" must use its exact default MCP servers. Expected: [playwright-custom], but got: [context7, playwright-custom].`},
		{"[] is a removal here", map[string]any{"agent_root": "zimmer", "mcp_servers": []any{}},
			`must use its exact default MCP servers. Expected: [playwright-custom], but got: [].`},
		{"plugins are refused outright", map[string]any{"agent_root": "zimmer", "plugins": []any{}},
			"plugins cannot be passed when this connection is restricted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.refused(t, fenced, "start_session", c.args, c.want)
		})
	}
	ok := e.ok(t, fenced, "start_session", map[string]any{"agent_root": "zimmer", "mcp_servers": []any{"playwright-custom"}, "skills": []any{}})
	contains(t, ok, "## Session Started Successfully")
	// An empty list on a root with no defaults removes nothing.
	e.ok(t, "/mcp?allowed_agent_roots=general-agent", "start_session", map[string]any{"agent_root": "general-agent", "mcp_servers": []any{}})
}

func TestStartSessionReplaysAnIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	key := graphtest.Unique(t, "key")
	first := e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "zimmer", "prompt": "once", "idempotency_key": key})
	again := e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "general-agent", "prompt": "different", "idempotency_key": key})
	contains(t, again, "## Existing Session Returned (idempotency_key matched)", "no second agent job was queued",
		"*Agent job: queued or running for this session.*")
	if startedID(t, first) != startedID(t, again) {
		t.Fatal("a repeat returns the first call's session whatever it passes")
	}
	clone := graphtest.Unique(t, "key")
	e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "zimmer", "idempotency_key": clone})
	contains(t, e.ok(t, "/mcp", "start_session", map[string]any{"agent_root": "zimmer", "idempotency_key": clone}),
		"Existing Session Returned", "No prompt was provided")
}

func TestFiftyParallelStartsWithOneKeyCreateOneSession(t *testing.T) {
	t.Parallel()
	e := setup(t)
	key := graphtest.Unique(t, "race")
	const n = 50
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		ids     = map[string]int{}
		created int
		errs    []string
	)
	for range n {
		wg.Go(func() {
			r := e.call(t, "/mcp", "start_session", map[string]any{"agent_root": "zimmer", "prompt": "race", "idempotency_key": key})
			mu.Lock()
			defer mu.Unlock()
			if r.isError {
				errs = append(errs, r.text)
				return
			}
			ids[between(r.text, "- **ID:** ", "\n")]++
			if strings.Contains(r.text, "## Session Started Successfully") {
				created++
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d calls failed, e.g. %s", len(errs), errs[0])
	}
	if len(ids) != 1 || created != 1 {
		t.Fatalf("want one session created once, got ids %v and %d creations", ids, created)
	}
	stored, err := e.store.SessionByIdempotencyKey(context.Background(), key)
	if err != nil || ids[fmt.Sprint(stored.ID)] != n {
		t.Fatalf("the key's one session is not the one every call returned: %v %v", err, ids)
	}
}
