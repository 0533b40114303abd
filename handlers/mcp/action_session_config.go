package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// The editing actions: a session's lists, model, goal, scheduling, notes, title, toggles,
// heartbeat, board visibility, and removing an uncle edge recorded in error.

var listLabels = map[orchestrator.ArtifactKind]string{
	orchestrator.ArtifactMCPServers: "MCP Servers", orchestrator.ArtifactSkills: "Skills",
	orchestrator.ArtifactHooks: "Hooks", orchestrator.ArtifactPlugins: "Plugins",
}

// actReplaceList is change_mcp_servers / change_skills / change_hooks / change_plugins: replace
// semantics, every id validated against its catalog.
func actReplaceList(kind orchestrator.ArtifactKind) func(context.Context, *actionCall) (string, error) {
	param := string(kind)
	return func(ctx context.Context, a *actionCall) (string, error) {
		ids := a.args.list(param)
		if ids == nil {
			return "", required(param, "change_"+param, " Pass the whole new list as an array ([] clears it).")
		}
		s, change, err := a.h.ops.ReplaceArtifacts(ctx, a.sess.ID, kind, *ids)
		if err != nil {
			return "", err
		}
		var b doc
		head(&b, listLabels[kind]+" Updated", s)
		b.field("Now", listOrNone(change.After))
		b.field("Added", listOrNone(change.Added))
		b.field("Removed", listOrNone(change.Removed))
		b.blank()
		b.line(nextPrepare)
		return b.String(), nil
	}
}

func actChangeModel(ctx context.Context, a *actionCall) (string, error) {
	model := a.args.text("model")
	if model == "" {
		return "", required("model", "change_model", " get_configs lists each runtime's models.")
	}
	s, before, err := a.h.ops.ChangeModel(ctx, a.sess.ID, model)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Model Updated", s)
	b.field("Model", fmt.Sprintf("%s (was %s)", model, orNone(before)))
	b.blank()
	b.line(nextPrepare)
	return b.String(), nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func actChangeGoal(ctx context.Context, a *actionCall) (string, error) {
	if !a.args.has("goal") {
		return "", required("goal", "change_goal", ` Pass "" to clear the goal.`)
	}
	goal := a.args.text("goal")
	s, err := a.h.ops.Update(ctx, a.sess.ID, orchestrator.UpdateParams{Goal: orchestrator.Opt[string]{Set: true, Value: &goal}})
	if err != nil {
		return "", err
	}
	var b doc
	if s.Goal == nil {
		head(&b, "Goal Cleared", s)
	} else {
		head(&b, "Goal Updated", s)
		b.field("Goal", oneLine(*s.Goal))
	}
	return b.String(), nil
}

func actChangeAutoCompactWindow(ctx context.Context, a *actionCall) (string, error) {
	n, ok := a.args.integer("auto_compact_window")
	if !ok {
		return "", fail("The \"auto_compact_window\" parameter is required for the \"change_auto_compact_window\" action and must be a positive integer.")
	}
	s, err := a.h.ops.ChangeAutoCompactWindow(ctx, a.sess.ID, n)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Auto-compact Window Updated", s)
	b.field("Auto-compact Window", s.AutoCompactWindow)
	b.blank()
	b.line(nextPrepare)
	return b.String(), nil
}

func actChangeSchedulingClass(ctx context.Context, a *actionCall) (string, error) {
	if !a.args.has("scheduling_class") {
		return "", required("scheduling_class", "change_scheduling_class", " Pass spot, priority, or null to derive it from the genesis.")
	}
	before := a.sess
	p := orchestrator.UpdateParams{SchedulingClass: orchestrator.Opt[string]{Set: true, Value: a.args.str("scheduling_class")}}
	if a.args.has("precedence") {
		n, err := precedenceArg(a.args)
		if err != nil {
			return "", err
		}
		p.Precedence = orchestrator.Opt[int64]{Set: true, Value: &n}
	}
	s, err := a.h.ops.Update(ctx, a.sess.ID, p)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Scheduling Class Updated", s)
	b.field("Scheduling class", fmt.Sprintf("%s (was %s)", s.PriorityClass(), before.PriorityClass()))
	source := "set on this session"
	if s.SchedulingClass == nil {
		source = "derived from genesis " + string(s.Genesis)
	}
	b.field("Source", source)
	b.field("Precedence", fmt.Sprintf("%d (was %d)", s.Precedence, before.Precedence))
	return b.String(), nil
}

func actChangePrecedence(ctx context.Context, a *actionCall) (string, error) {
	var (
		s   *session.Session
		err error
	)
	switch place := a.args.text("place"); {
	case place != "" && a.args.has("precedence"):
		return "", fail("place and precedence are mutually exclusive: pass one.")
	case place != "":
		s, err = a.h.ops.PlaceTopOfSpot(ctx, a.sess.ID)
	case a.args.has("precedence"):
		var n int64
		if n, err = precedenceArg(a.args); err != nil {
			return "", err
		}
		s, err = a.h.ops.Update(ctx, a.sess.ID, orchestrator.UpdateParams{Precedence: orchestrator.Opt[int64]{Set: true, Value: &n}})
	default:
		return "", required("precedence", "change_precedence", ` Or pass place: "top_of_spot".`)
	}
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Precedence Updated", s)
	b.field("Precedence", fmt.Sprintf("%d (was %d)", s.Precedence, a.sess.Precedence))
	if s.PriorityClass() == session.ClassPriority {
		b.blank()
		b.line("_This session runs as priority, which does not wait in the spot queue: its precedence only matters if it is demoted to spot._")
	}
	return b.String(), nil
}

var integerText = regexp.MustCompile(`^-?\d+$`)

// precedenceArg reads precedence: an integer, or a string of one, within the absolute scale.
func precedenceArg(a args) (int64, error) {
	var text string
	switch v := a["precedence"].(type) {
	case json.Number:
		text = v.String()
	case string:
		text = strings.TrimSpace(v)
	default:
		return 0, fail("precedence must be an integer (got %v)", v)
	}
	if !integerText.MatchString(text) {
		return 0, fail("precedence must be an integer (got %q)", text)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < -session.MaxPrecedence || n > session.MaxPrecedence {
		return 0, fail("precedence must be between %d and %d", -session.MaxPrecedence, session.MaxPrecedence)
	}
	return n, nil
}

func actTogglePush(ctx context.Context, a *actionCall) (string, error) {
	s, err := a.h.ops.TogglePushNotifications(ctx, a.sess.ID)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Push Notifications Toggled", s)
	b.field("Push Notifications", onOff(s.PushNotificationsEnabled))
	return b.String(), nil
}

func actToggleFavorite(ctx context.Context, a *actionCall) (string, error) {
	s, err := a.h.ops.ToggleFavorite(ctx, a.sess.ID)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Favorite Toggled", s)
	b.field("Favorited", s.Favorited)
	return b.String(), nil
}

func actSetHeartbeat(ctx context.Context, a *actionCall) (string, error) {
	enabled := a.args.optFlag("enabled")
	var interval *int64
	if a.args.has("interval_seconds") {
		n, ok := a.args.integer("interval_seconds")
		if !ok {
			return "", fail("interval_seconds must be a whole number of seconds between %d and %d.", session.MinHeartbeatInterval, session.MaxHeartbeatInterval)
		}
		interval = &n
	}
	if enabled == nil && interval == nil {
		return "", fail(`The "set_heartbeat" action requires at least one of "enabled" or "interval_seconds".`)
	}
	s, err := a.h.ops.SetHeartbeat(ctx, a.sess.ID, enabled, interval)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Heartbeat Updated", s)
	b.field("Heartbeat", onOff(s.HeartbeatEnabled))
	b.field("Interval", fmt.Sprintf("%d s", s.HeartbeatInterval))
	return b.String(), nil
}

func actSetVisibility(ctx context.Context, a *actionCall) (string, error) {
	visibility := a.args.text("visibility")
	if visibility == "" {
		return "", required("visibility", "set_visibility", " Pass visible, hidden, or snoozed with snoozed_until.")
	}
	var until *time.Time
	if raw := a.args.text("snoozed_until"); raw != "" {
		t, err := time.Parse(time.RFC3339, raw)
		if err != nil {
			return "", fail("snoozed_until must be an RFC 3339 time such as 2026-04-15T14:30:00Z (got %q).", raw)
		}
		until = &t
	}
	s, err := a.h.ops.SetVisibility(ctx, a.sess.ID, visibility, until)
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Visibility Updated", s)
	b.field("Visibility", cmpOr(visibilityLine(s), "visible"))
	b.blank()
	b.line("_Visibility only moves the card on the humans' board: no scheduler reads it. To defer work, use pause_into_spot_queue or change_precedence._")
	return b.String(), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func actUpdateNotes(ctx context.Context, a *actionCall) (string, error) {
	notes := a.args.str("session_notes")
	if notes == nil {
		return "", required("session_notes", "update_notes", ` Pass "" to clear the notes.`)
	}
	s, err := a.h.ops.UpdateNotes(ctx, a.sess.ID, *notes)
	if err != nil {
		return "", err
	}
	var b doc
	if s.SessionNotes == nil {
		head(&b, "Notes Cleared", s)
		return b.String(), nil
	}
	head(&b, "Notes Updated", s)
	b.field("Length", fmt.Sprintf("%d characters", len([]rune(*s.SessionNotes))))
	b.optField("Updated At", optTimestamp(s.SessionNotesUpdatedAt))
	return b.String(), nil
}

func actUpdateTitle(ctx context.Context, a *actionCall) (string, error) {
	title := a.args.text("title")
	if title == "" {
		return "", required("title", "update_title", "")
	}
	s, err := a.h.ops.Update(ctx, a.sess.ID, orchestrator.UpdateParams{Title: orchestrator.Opt[string]{Set: true, Value: &title}})
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Title Updated", s)
	if s.Slug != nil {
		b.field("Slug", *s.Slug)
	}
	return b.String(), nil
}

func actRemoveUncle(ctx context.Context, a *actionCall) (string, error) {
	uncle := a.args.text("uncle_session_id")
	if uncle == "" {
		return "", required("uncle_session_id", "remove_uncle", " session_id is the junior end of the edge, uncle_session_id the senior.")
	}
	removed, err := a.h.ops.RemoveUncle(ctx, orchestrator.RemoveUncleParams{
		Junior: a.sess.ID, Uncle: uncle, Acting: a.args.text("acting_session_id"),
		Surface: "MCP", Source: "mcp:action_session.remove_uncle",
	})
	if err != nil {
		return "", err
	}
	var b doc
	b.heading(2, "Uncle Edge Removed")
	b.field("Edge", fmt.Sprintf("#%d → #%d", removed.UncleID, removed.JuniorID))
	b.field("Junior (session_id)", removed.JuniorID)
	b.field("Former senior (uncle_session_id)", removed.UncleID)
	b.field("Recorded at", timestamp(removed.RecordedAt))
	b.optField("Recorded by", removed.EdgeSource)
	b.blank()
	b.line("The removal is logged on both sessions' timelines. Both hierarchies no longer include each other through this edge; get_session with as_of still shows it for the time it stood.")
	return b.String(), nil
}

func actChangeCategory(ctx context.Context, a *actionCall) (string, error) {
	if !a.args.has("category_id") {
		return "", required("category_id", "change_category", " Pass null to put the session back in Uncategorized.")
	}
	s, cat, err := a.h.ops.SetSessionCategory(ctx, a.sess.ID, a.args.optInt("category_id"))
	if err != nil {
		return "", err
	}
	var b doc
	head(&b, "Category Updated", s)
	b.field("Category", categoryLabel(cat))
	return b.String(), nil
}
