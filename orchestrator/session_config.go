package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/session"
)

// The per-session settings every editor surface changes (the session page's inline editors,
// MCP action_session). Each persists to the session and takes effect the next time its runtime
// config is prepared — its next turn, a restart or an unarchive: nothing here reconfigures a
// running process, whichever door the request came through.

// ArtifactKind names one of a session's catalog lists.
type ArtifactKind string

// The four lists a session carries.
const (
	ArtifactMCPServers ArtifactKind = "mcp_servers"
	ArtifactSkills     ArtifactKind = "skills"
	ArtifactHooks      ArtifactKind = "hooks"
	ArtifactPlugins    ArtifactKind = "plugins"
)

// maxArtifactID caps one id's length; the catalog's ids are short and a longer one is noise.
const maxArtifactID = 100

// ListChange is what replacing a list did.
type ListChange struct {
	Before, After, Added, Removed []string
}

// artifactList is everything that differs between the four lists.
type artifactList struct {
	label   string // "MCP servers", for messages
	max     int
	catalog map[string]*catalog.Artifact
	field   func(*session.Session) *[]string
}

func (s *Service) artifactList(kind ArtifactKind) (artifactList, error) {
	cat := s.Catalog()
	switch kind {
	case ArtifactMCPServers:
		return artifactList{"MCP servers", session.MaxMCPServers, cat.MCPServers, func(u *session.Session) *[]string { return &u.MCPServers }}, nil
	case ArtifactSkills:
		return artifactList{"skills", session.MaxSkills, cat.Skills, func(u *session.Session) *[]string { return &u.CatalogSkills }}, nil
	case ArtifactHooks:
		return artifactList{"hooks", session.MaxHooks, cat.Hooks, func(u *session.Session) *[]string { return &u.CatalogHooks }}, nil
	case ArtifactPlugins:
		return artifactList{"plugins", session.MaxPlugins, cat.Plugins, func(u *session.Session) *[]string { return &u.CatalogPlugins }}, nil
	}
	return artifactList{}, fmt.Errorf("unknown artifact kind %q: %w", kind, ErrInvalid)
}

// ReplaceArtifacts replaces one of the session's lists — replace, not merge: the result is
// exactly ids. Every id must exist in its catalog (an unknown one would only fail the next
// prepare), and [] is a deliberate "none", recorded as such for MCP servers.
func (s *Service) ReplaceArtifacts(ctx context.Context, id int64, kind ArtifactKind, ids []string) (*session.Session, ListChange, error) {
	l, err := s.artifactList(kind)
	if err != nil {
		return nil, ListChange{}, err
	}
	want, err := l.clean(ids)
	if err != nil {
		return nil, ListChange{}, err
	}
	var change ListChange
	sess, err := s.update(ctx, id, func(u *session.Session) error {
		field := l.field(u)
		change = diffLists(*field, want)
		*field = slices.Clone(want)
		if kind == ArtifactMCPServers {
			recordServerChange(u, want, change.Removed)
		}
		return nil
	})
	if err != nil {
		return nil, ListChange{}, err
	}
	s.logChange(ctx, sess.ID, fmt.Sprintf("%s changed to %s (added: %s; removed: %s)", capitalize(l.label),
		orNone(change.After), orNone(change.Added), orNone(change.Removed)))
	return sess, change, nil
}

// clean strips ids, drops blanks and repeats, and checks the count, lengths and catalog.
func (l artifactList) clean(ids []string) ([]string, error) {
	out := []string{}
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	var bad problems
	if len(out) > l.max {
		bad.add(fmt.Sprintf("Maximum %d %s", l.max, l.label))
	}
	for _, id := range out {
		if len([]rune(id)) > maxArtifactID {
			bad.add(fmt.Sprintf("%s id %q is longer than %d characters", l.label, id, maxArtifactID))
		}
	}
	if err := bad.err("Validation failed"); err != nil {
		return nil, err
	}
	if unknown := catalog.Unknown(out, l.catalog); len(unknown) > 0 {
		return nil, invalid("Invalid "+l.label, fmt.Sprintf("%s. Valid %s: %s", strings.Join(unknown, ", "), l.label,
			orNone(catalog.IDs(l.catalog))))
	}
	return out, nil
}

// recordServerChange keeps the MCP bookkeeping in step: an explicit empty list is remembered as
// a choice (not an absence to fill with defaults), and a removed server's status is forgotten.
func recordServerChange(u *session.Session, want, removed []string) {
	if len(want) == 0 {
		u.Metadata[session.MetaMCPServersExplicitlyEmpty] = true
	} else {
		delete(u.Metadata, session.MetaMCPServersExplicitlyEmpty)
	}
	if statuses, ok := u.CustomMetadata[session.CustomMCPServersStatus].(map[string]any); ok {
		for _, name := range removed {
			delete(statuses, name)
		}
	}
}

func diffLists(before, after []string) ListChange {
	c := ListChange{Before: slices.Clone(before), After: slices.Clone(after), Added: []string{}, Removed: []string{}}
	for _, id := range after {
		if !slices.Contains(before, id) {
			c.Added = append(c.Added, id)
		}
	}
	for _, id := range before {
		if !slices.Contains(after, id) {
			c.Removed = append(c.Removed, id)
		}
	}
	return c
}

// ChangeModel sets config.model; it must be one of the session's runtime's models.
func (s *Service) ChangeModel(ctx context.Context, id int64, model string) (*session.Session, string, error) {
	model = strings.TrimSpace(model)
	var before string
	cat := s.Catalog()
	sess, err := s.update(ctx, id, func(u *session.Session) error {
		if !cat.HasModel(u.AgentRuntime, model) {
			return invalid("Invalid model", fmt.Sprintf("model %q is not valid for runtime %s. Valid models: %s",
				model, u.AgentRuntime, strings.Join(cat.ModelIDs(u.AgentRuntime), ", ")))
		}
		before = u.Model()
		u.Config[session.ConfigModel] = model
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	s.logChange(ctx, sess.ID, fmt.Sprintf("Model changed from %s to %s", orNone([]string{before}), model))
	return sess, before, nil
}

// ChangeAutoCompactWindow sets the context size at which the runtime compacts.
func (s *Service) ChangeAutoCompactWindow(ctx context.Context, id, tokens int64) (*session.Session, error) {
	if tokens < 1 || tokens > session.MaxAutoCompactWindow {
		return nil, invalid("Validation failed", fmt.Sprintf("auto_compact_window must be between 1 and %d", session.MaxAutoCompactWindow))
	}
	return s.update(ctx, id, func(u *session.Session) error {
		u.AutoCompactWindow = tokens
		return nil
	})
}

// SetHeartbeat turns the periodic nudge on or off and/or sets its interval; at least one must be
// given.
func (s *Service) SetHeartbeat(ctx context.Context, id int64, enabled *bool, interval *int64) (*session.Session, error) {
	if enabled == nil && interval == nil {
		return nil, invalid("Validation failed", "set_heartbeat requires at least one of enabled or interval_seconds")
	}
	if interval != nil && (*interval < session.MinHeartbeatInterval || *interval > session.MaxHeartbeatInterval) {
		return nil, invalid("Validation failed", fmt.Sprintf("interval_seconds must be between %d and %d",
			session.MinHeartbeatInterval, session.MaxHeartbeatInterval))
	}
	return s.update(ctx, id, func(u *session.Session) error {
		if enabled != nil {
			u.HeartbeatEnabled = *enabled
		}
		if interval != nil {
			u.HeartbeatInterval = *interval
		}
		return nil
	})
}

// TogglePushNotifications flips whether the session's transitions push to the humans' devices.
func (s *Service) TogglePushNotifications(ctx context.Context, id int64) (*session.Session, error) {
	return s.update(ctx, id, func(u *session.Session) error {
		u.PushNotificationsEnabled = !u.PushNotificationsEnabled
		return nil
	})
}

// ToggleFavorite flips the session's star on the humans' board.
func (s *Service) ToggleFavorite(ctx context.Context, id int64) (*session.Session, error) {
	return s.update(ctx, id, func(u *session.Session) error {
		u.Favorited = !u.Favorited
		return nil
	})
}

// Board visibilities. Visibility is a visual-organization device only: no scheduler reads it,
// and a snoozed session runs exactly when it would have run anyway.
const (
	VisibilityVisible = "visible"
	VisibilityHidden  = "hidden"
	VisibilitySnoozed = "snoozed"
)

// SetVisibility puts a session's card on the board, hides it, or snoozes it until a future time.
func (s *Service) SetVisibility(ctx context.Context, id int64, visibility string, until *time.Time) (*session.Session, error) {
	switch visibility {
	case VisibilityVisible, VisibilityHidden:
		if until != nil {
			return nil, invalid("Validation failed", "snoozed_until is only for visibility snoozed")
		}
	case VisibilitySnoozed:
		if until == nil || !until.After(s.now()) {
			return nil, invalid("Validation failed", "visibility snoozed needs snoozed_until, a time in the future")
		}
	default:
		return nil, invalid("Validation failed", fmt.Sprintf("visibility must be visible, hidden or snoozed (got %q)", visibility))
	}
	return s.update(ctx, id, func(u *session.Session) error {
		u.Visibility = visibility
		delete(u.Metadata, session.MetaSnoozedUntil)
		if until != nil {
			u.Metadata[session.MetaSnoozedUntil] = until.UTC().Format(time.RFC3339)
		}
		return nil
	})
}

// PlaceTopOfSpot moves a session's precedence just above every live spot session's: the same
// resolution start_session's place: "top_of_spot" performs.
func (s *Service) PlaceTopOfSpot(ctx context.Context, id int64) (*session.Session, error) {
	top, err := s.store.MaxSpotPrecedence(ctx)
	if err != nil {
		return nil, fmt.Errorf("place session %d at the top of spot: %w", id, err)
	}
	return s.update(ctx, id, func(u *session.Session) error {
		u.Precedence = clamp(top+topOfSpotMargin, -session.MaxPrecedence, session.MaxPrecedence)
		return nil
	})
}

// SpotPark says how a session was parked.
type SpotPark struct {
	Before session.Status
	// AfterTurn is true for a running session left to finish its turn before it sleeps.
	AfterTurn bool
	// Halted is true for a running session whose turn was stopped where it stood.
	Halted bool
}

// PauseIntoSpotQueue sleeps a session with no wake trigger, for the spot scheduler to resume
// when quota and a slot allow. A running session finishes its turn first (pending_sleep): its
// commonest caller is the session itself, which must not kill the process awaiting the reply.
// halt stops a running turn where it stands instead: the turn loses its ownership, which the
// runner notices within a tick and terminates, and the session sleeps at once.
func (s *Service) PauseIntoSpotQueue(ctx context.Context, id int64, halt bool) (*session.Session, SpotPark, error) {
	var park SpotPark
	sess, err := s.update(ctx, id, func(u *session.Session) error {
		park = SpotPark{Before: u.Status}
		if err := s.parkForSpot(u, halt, &park); err != nil {
			return err
		}
		u.Metadata[session.MetaSpotQueuedAt] = s.now().UTC().Format(time.RFC3339)
		return nil
	})
	if err != nil {
		return nil, SpotPark{}, err
	}
	line := "Parked in the spot queue: no wake trigger; the spot scheduler resumes it when quota and a slot allow"
	if park.Halted {
		line += " (its running turn was halted)"
	}
	s.logChange(ctx, sess.ID, line)
	return sess, park, nil
}

// parkForSpot moves u toward waiting as its status allows.
func (s *Service) parkForSpot(u *session.Session, halt bool, park *SpotPark) error {
	switch u.Status {
	case session.StatusRunning:
		if !halt {
			park.AfterTurn = true
			u.Metadata[session.MetaPendingSleep] = true
			return nil
		}
		if err := s.applyEvent(u, session.EventPause, "Cannot park"); err != nil {
			return err
		}
		park.Halted, u.RunningJobID = true, nil
		return s.applyEvent(u, session.EventSleep, "Cannot park")
	case session.StatusNeedsInput:
		return s.applyEvent(u, session.EventSleep, "Cannot park")
	case session.StatusWaiting:
		return nil
	}
	return invalid("Cannot park", fmt.Sprintf(
		"Session #%d is %s; only a running, waiting or needs_input session can be parked in the spot queue", u.ID, u.Status))
}

// logChange writes a settings change to the session's timeline; a failed line is only logged,
// since the change itself committed.
func (s *Service) logChange(ctx context.Context, sessionID int64, line string) {
	if _, err := s.store.AppendLog(ctx, session.LogInfo, line, sessionID); err != nil {
		s.log.Warn("session changed but its timeline line was not written", "session_id", sessionID, "err", err)
	}
}

func orNone(list []string) string {
	if len(list) == 0 || (len(list) == 1 && list[0] == "") {
		return "(none)"
	}
	return strings.Join(list, ", ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
