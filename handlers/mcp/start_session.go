package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

func startSessionTool() *toolDef {
	return &toolDef{name: "start_session", group: groupSessions, write: true, full: variant{
		description: "Start a session on an agent root. With a prompt its agent job is queued at once; without one the " +
			"session is only cloned. Omitted mcp_servers/skills/hooks/plugins take the root's defaults; an explicit [] " +
			"means none. Pass parent_session_id when you are a session spawning another, so the child sees the human " +
			"context you were given. Pass a fresh UUID as idempotency_key and the call becomes safe to retry on any " +
			"error, timeouts included: a repeat returns the first call's session and queues no second job. Without a " +
			"key, do not retry a failed call — search for the title with quick_search_sessions first. Never derive the " +
			"key from the task or an issue number: keys share one global namespace.",
		schema: newSchema(fields{
			"agent_root":          str("The agent root (see get_configs): its repository, branch and defaults."),
			"agent_runtime":       str("claude_code, codex or pi (default: the root's, else claude_code)."),
			"prompt":              str("The first prompt; omitted, the session is cloned but not started.").maxLen(session.MaxPrompt),
			"title":               str("A short title.").maxLen(session.MaxTitle),
			"slug":                str("A unique slug ([a-z0-9-]+, not only digits: a number names a session by its id)."),
			"goal":                str("The definition of done: a goal id from get_configs, or free text."),
			"execution_provider":  str("Where it runs.").enum(session.LocalFilesystem),
			"mcp_servers":         strList("MCP servers (omitted: the root's defaults; []: none)."),
			"skills":              strList("Skills (omitted: the root's defaults; []: none)."),
			"hooks":               strList("Hooks (omitted: the root's defaults; []: none)."),
			"plugins":             strList("Plugins (omitted: the root's defaults; []: none)."),
			"config":              object("Runtime settings; config.model picks the model."),
			"custom_metadata":     object("Your own keys, searchable with quick_search_sessions."),
			"parent_session_id":   integer("The session spawning this one (you, when you are a session).").min(1),
			"scheduling_class":    str("spot or priority (default: inherited from the parent, else from the genesis).").enum("spot", "priority"),
			"precedence":          anyOf("Higher runs sooner (default 0; a child defaults to its parent's + 1).", "integer", "string"),
			"place":               str("Symbolic placement; excludes precedence.").enum(orchestrator.PlaceTopOfSpot),
			"auto_compact_window": integer("Tokens at which the runtime compacts.").min(1).max(session.MaxAutoCompactWindow),
			"idempotency_key":     str("A fresh UUID naming this attempt: a repeat returns the first session.").maxLen(session.MaxIdempotencyKey),
		}),
		run: runStartSession,
	}}
}

func runStartSession(ctx context.Context, c *call) (string, error) {
	if err := fenceStart(c); err != nil {
		return "", err
	}
	p, err := createParams(c)
	if err != nil {
		return "", err
	}
	out, err := c.h.ops.Create(ctx, p)
	if err != nil {
		return "", err
	}
	return renderStarted(c, out), nil
}

func createParams(c *call) (orchestrator.CreateParams, error) {
	a := c.args
	p := orchestrator.CreateParams{
		AgentRoot: a.str("agent_root"), AgentRuntime: a.str("agent_runtime"), Prompt: a.str("prompt"),
		Title: a.str("title"), Slug: a.str("slug"), Goal: a.str("goal"), ExecutionProvider: a.str("execution_provider"),
		SchedulingClass: a.str("scheduling_class"), Place: a.str("place"), IdempotencyKey: a.str("idempotency_key"),
		ParentSessionID: a.optInt("parent_session_id"), AutoCompactWindow: a.optInt("auto_compact_window"),
		MCPServers: a.list("mcp_servers"), CatalogSkills: a.list("skills"), CatalogHooks: a.list("hooks"),
		CatalogPlugins: a.list("plugins"), Config: a.object("config"), CustomMetadata: a.object("custom_metadata"),
		Genesis: session.GenesisAPI, // a parent's genesis wins over this in Create
	}
	if a.has("precedence") {
		n, err := precedenceArg(a)
		if err != nil {
			return p, err
		}
		p.Precedence = &n
	}
	return p, nil
}

// fenceStart applies allowed_agent_roots: the root must be named and allowed and exist, its
// default MCP servers must be taken exactly (no additions, no removals — [] included unless the
// root has none), and plugins are refused outright, since a plugin bundles servers of its own.
func fenceStart(c *call) error {
	if !c.scope.Restricted() {
		return nil
	}
	name := c.args.text("agent_root")
	if err := c.fenceRoot(name); err != nil {
		return err
	}
	roots := c.h.ops.Catalog().Roots
	root, ok := roots[name]
	if !ok {
		return fail("Agent root %q is in the allowed list but was not found in the configuration. Available agent roots: %s",
			name, strings.Join(sortedKeys(roots), ", "))
	}
	if c.args.has("plugins") {
		return fail("plugins cannot be passed when this connection is restricted to specific agent roots: a plugin bundles MCP servers of its own, " +
			"added on top of mcp_servers. Omit it and the session takes the root's default plugins.")
	}
	if given := c.args.list("mcp_servers"); given != nil {
		want, got := slices.Sorted(slices.Values(root.DefaultMCPServers)), slices.Sorted(slices.Values(*given))
		if !slices.Equal(want, got) {
			return fail("Agent root %q must use its exact default MCP servers. Expected: [%s], but got: [%s]. "+
				"You cannot add or remove MCP servers when this connection is restricted to specific agent roots.",
				name, listOrNone(want), strings.Join(got, ", "))
		}
	}
	return nil
}

func renderStarted(c *call, out orchestrator.Created) string {
	s := out.Session
	var b doc
	if out.Existing {
		b.heading(2, "Existing Session Returned (idempotency_key matched)")
		b.line("A session was already created with this idempotency_key; it is returned as it is now, whatever else this call passed, and no second agent job was queued.")
		b.blank()
	} else {
		b.heading(2, "Session Started Successfully")
	}
	b.field("ID", s.ID)
	b.field("Title", oneLine(s.DisplayTitle()))
	b.field("Status", s.Status)
	if s.Slug != nil {
		b.field("Slug", *s.Slug)
	}
	b.field("Agent Runtime", s.AgentRuntime)
	b.field("Genesis", fmt.Sprintf("%s (%s)", s.Genesis, s.PriorityClass()))
	b.field("Precedence", s.Precedence)
	b.field("URL", sessionURL(c, s.ID))
	if s.JobID != nil {
		b.field("Job ID", *s.JobID)
	}
	b.blank()
	b.line(jobSentence(out))
	for _, w := range out.Warnings {
		b.line("⚠️ " + w)
	}
	return b.String()
}

// jobSentence says whether an agent job is queued, including on a replay, where a session that
// was created but never started (a worker killed between commit and enqueue) must be visible.
func jobSentence(out orchestrator.Created) string {
	switch {
	case out.JobQueued && out.Existing:
		return "*Agent job: queued or running for this session.*"
	case out.JobQueued:
		return "*The agent job has been queued and will start shortly.*"
	case out.Existing && out.Session.Prompt != nil && *out.Session.Prompt != "":
		return "*Agent job: NONE is queued for this session. It was created with a prompt but its job is not in the queue (it may have run already, or was never enqueued); check its status before assuming it is running.*"
	default:
		return "*No prompt was provided. Use action_session with \"follow_up\" to start the agent.*"
	}
}

// sessionURL is a session's page on the instance the caller reached.
func sessionURL(c *call, id int64) string { return fmt.Sprintf("%s/sessions/%d", c.base, id) }
