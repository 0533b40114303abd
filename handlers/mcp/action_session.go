package mcp

import (
	"context"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// action_session is a verb multiplexer: one tool, an action enum, one handler per action. The
// self_session composite hands out a narrowed variant of the same name — its enum cut to what a
// session may do to itself, plus message_parent, which exists only there.

// actionCall is one action invocation.
type actionCall struct {
	*call
	sess *session.Session // nil for the actions that take session_ids instead
	self bool             // reached through the self_session variant
}

// action is one verb and how the dispatcher treats it.
type action struct {
	run func(ctx context.Context, a *actionCall) (string, error)
	// noSession marks the actions that name no single session.
	noSession bool
	// fence names what a root-restricted connection would do to the session ("fork"), for the
	// actions that are a spawn by another name; they are refused unless its root is allowed.
	fence string
	// closedWhenRestricted marks the actions that can bring in MCP servers, refused outright on
	// a root-restricted connection.
	closedWhenRestricted bool
}

// actionVerbs is every action, in the order the sessions-group enum lists them; message_parent
// (last) exists only in the self_session variant.
var actionVerbs = verbs[action]{
	{"follow_up", action{run: actFollowUp}},
	{"pause", action{run: actPause}},
	{"restart", action{run: actRestart, fence: "restart"}},
	{"archive", action{run: actArchive}},
	{"unarchive", action{run: actUnarchive}},
	{"change_mcp_servers", action{run: actReplaceList(orchestrator.ArtifactMCPServers), closedWhenRestricted: true}},
	{"change_model", action{run: actChangeModel}},
	{"change_skills", action{run: actReplaceList(orchestrator.ArtifactSkills)}},
	{"change_hooks", action{run: actReplaceList(orchestrator.ArtifactHooks)}},
	{"change_plugins", action{run: actReplaceList(orchestrator.ArtifactPlugins), closedWhenRestricted: true}},
	{"change_goal", action{run: actChangeGoal}},
	{"change_auto_compact_window", action{run: actChangeAutoCompactWindow}},
	{"change_scheduling_class", action{run: actChangeSchedulingClass}},
	{"change_precedence", action{run: actChangePrecedence}},
	{"change_category", action{run: actChangeCategory}},
	{"toggle_push_notifications", action{run: actTogglePush}},
	{"set_heartbeat", action{run: actSetHeartbeat}},
	{"fork", action{run: actFork, fence: "fork"}},
	{"regenerate_status_summary", action{run: actRegenerateStatusSummary, fence: "regenerate the status summary of"}},
	{"refresh", action{run: actRefresh}},
	{"refresh_all", action{run: actRefreshAll, noSession: true}},
	{"update_notes", action{run: actUpdateNotes}},
	{"update_title", action{run: actUpdateTitle}},
	{"toggle_favorite", action{run: actToggleFavorite}},
	{"bulk_archive", action{run: actBulkArchive, noSession: true}},
	{"set_visibility", action{run: actSetVisibility}},
	{"pause_into_spot_queue", action{run: actPauseIntoSpotQueue}},
	{"remove_uncle", action{run: actRemoveUncle}},
	{"message_parent", action{run: actMessageParent}},
}

var (
	// fullVerbs is the sessions-group surface.
	fullVerbs = actionVerbs.except("message_parent")
	// selfVerbs is the self_session surface: management of oneself, no capability or config
	// edits, and message_parent.
	selfVerbs = actionVerbs.only("update_notes", "update_title", "set_heartbeat", "pause_into_spot_queue", "message_parent", "archive")
)

var actionFields = fields{
	"session_id":          sessionRef("The session: id or slug."),
	"action":              fullVerbs.enum(),
	"prompt":              str("follow_up: the message.").maxLen(session.MaxPrompt),
	"goal":                str("follow_up: a new definition of done (blank keeps the goal); change_goal: the goal (\"\" clears it).").maxLen(session.MaxGoal),
	"force_immediate":     boolean("follow_up: interrupt a running turn instead of queuing."),
	"force":               boolean("archive: discard pending queued messages (they are marked undelivered)."),
	"mcp_servers":         strList("change_mcp_servers: the whole new list (replace; [] clears)."),
	"skills":              strList("change_skills: the whole new list (replace; [] clears)."),
	"hooks":               strList("change_hooks: the whole new list (replace; [] clears)."),
	"plugins":             strList("change_plugins: the whole new list (replace; [] clears)."),
	"model":               str("change_model: a model of the session's runtime."),
	"auto_compact_window": integer("change_auto_compact_window: tokens.").min(1).max(session.MaxAutoCompactWindow),
	"scheduling_class":    str("change_scheduling_class: spot, priority, or null to derive it from the genesis.").enum("spot", "priority").nullable(),
	"precedence":          anyOf("change_precedence / change_scheduling_class: higher runs sooner.", "integer", "string"),
	"place":               str("change_precedence: symbolic placement instead of a number.").enum(orchestrator.PlaceTopOfSpot),
	"category_id":         number("change_category: the category; null clears it.").nullable(),
	"enabled":             boolean("set_heartbeat: heartbeat on or off."),
	"interval_seconds":    number("set_heartbeat: seconds between beats (30–86400).").min(session.MinHeartbeatInterval).max(session.MaxHeartbeatInterval),
	"message_index":       number("fork: the message to fork at."),
	"session_notes":       str("update_notes: the notes (\"\" clears them).").maxLen(session.MaxNotes),
	"session_ids":         list("bulk_archive: the sessions.", number("")),
	"title":               str("update_title: the new title.").maxLen(session.MaxTitle),
	"acting_session_id":   sessionRef("Your own session id, when you are a session: records you as a senior of the target (follow_up) or as the actor (archive, remove_uncle)."),
	"visibility":          str("set_visibility: the card on the humans' board (visual only).").enum(orchestrator.VisibilityVisible, orchestrator.VisibilityHidden, orchestrator.VisibilitySnoozed),
	"snoozed_until":       str("set_visibility snoozed: when the card returns (RFC 3339)."),
	"uncle_session_id":    sessionRef("remove_uncle: the senior end of the edge (session_id is the junior)."),
	"halt":                boolean("pause_into_spot_queue: stop a running turn where it stands instead of letting it finish."),
}

var selfActionFields = fields{
	"message":          str("message_parent: your report, in your own words.").maxLen(session.MaxPrompt),
	"reason":           str("message_parent: why you are reporting.").enum(orchestrator.ParentReasons...),
	"force_immediate":  boolean("message_parent: interrupt a running parent instead of queuing (default: queue)."),
	"unarchive_parent": boolean("message_parent: restore an archived parent, then deliver."),
}

func actionSessionTool() *toolDef {
	full := newSchema(actionFields, "action")
	self := full.only("session_id", "session_notes", "title", "enabled", "interval_seconds", "force", "acting_session_id").
		with("action", selfVerbs.enum())
	for k, p := range selfActionFields {
		self = self.with(k, p)
	}
	self = self.requiring("action").
		with("session_id", sessionRef("Your own session: id or slug (defaults to this connection's session)."))
	return &toolDef{name: "action_session", group: groupSessions, write: true, composites: []string{compositeSelf},
		full: variant{
			description: "Act on a session: follow_up (queued behind a running turn, delivered now to an idle one, or " +
				"force_immediate to interrupt), archive/unarchive/bulk_archive, change_* of its MCP servers, skills, hooks, " +
				"plugins (replace semantics, validated against the catalog), model, goal, precedence (or place: " +
				"\"top_of_spot\"), scheduling class, auto-compact window, category; set_heartbeat, set_visibility (the " +
				"humans' board only), pause_into_spot_queue, update_notes, update_title, toggles, and remove_uncle to " +
				"detach an uncle edge recorded in error. Config changes take effect at the session's next prepare (next " +
				"turn, restart or unarchive), never in a running process. Set acting_session_id to your own session id " +
				"when you are a session.",
			schema: full,
			run: func(ctx context.Context, c *call) (string, error) {
				return dispatchAction(ctx, c, fullVerbs, false)
			},
		},
		overrides: map[string]variant{compositeSelf: {
			description: "Manage your own session: update_notes, update_title, set_heartbeat, pause_into_spot_queue " +
				"(sleep until the spot scheduler has quota and a slot; a running turn finishes first), archive (yourself, " +
				"when your work is done), and message_parent — report to the session that spawned you when you cannot do " +
				"the work (reason wrong_scope or missing_tools) or for anything else (other). A report is a follow-up: a " +
				"parent asleep on a wake takes it as a turn and its wake stays armed (a follow-up never cancels a wake). " +
				"session_id defaults to this connection's session.",
			schema: self,
			run: func(ctx context.Context, c *call) (string, error) {
				return dispatchAction(ctx, c, selfVerbs, true)
			},
		}},
	}
}

// dispatchAction checks the action against the variant's table and the connection's fence,
// resolves the session, and runs the action.
func dispatchAction(ctx context.Context, c *call, allowed verbs[action], self bool) (string, error) {
	name := c.args.text("action")
	act, err := allowed.lookup(name)
	if err != nil {
		return "", err
	}
	if act.closedWhenRestricted && c.scope.Restricted() {
		return "", fail("The %q action is not allowed when this connection is restricted to specific agent roots: it can bring in MCP servers, which the restriction exists to keep fixed. Allowed agent roots: %s",
			name, c.allowedList())
	}
	a := &actionCall{call: c, self: self}
	if act.noSession {
		return act.run(ctx, a)
	}
	if self {
		a.sess, err = c.selfSession(ctx, "session_id")
	} else if key := c.args.text("session_id"); key == "" {
		err = fail("The \"session_id\" parameter is required for the %q action.", name)
	} else {
		a.sess, err = c.session(ctx, key)
	}
	if err != nil {
		return "", err
	}
	if act.fence != "" {
		if err := c.fenceSession(a.sess, act.fence); err != nil {
			return "", err
		}
	}
	return act.run(ctx, a)
}

// head opens an action's result with the session it acted on.
func head(b *doc, heading string, s *session.Session) {
	b.heading(2, heading)
	b.field("Session ID", s.ID)
	b.field("Title", oneLine(s.DisplayTitle()))
}

// nextPrepare is said after every config change: nothing hot-reconfigures a running process.
const nextPrepare = "Takes effect the next time the session's runtime config is prepared — its next turn, a restart or an unarchive. A running process is not reconfigured."
