package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/trigger"
)

// Wakes: one-time reuse triggers that resume the session that asked for them, at a wall-clock
// time (wake_me_up_later) or when another session changes state
// (wake_me_up_when_session_changes_state). Arming one sleeps the session; while one is armed
// the session rests asleep after every turn, so a follow-up (a router's, a human's, a child's
// message_parent report) is a turn inside the wait and never ends it. Only a takeover does:
// restart, archive, resuming a session paused by hand, or cancelling the wake at /triggers.

// Wake kinds (the metrics' label).
const (
	WakeAtTime  = "at_time"
	WakeOnState = "on_state"
)

func wakeKind(t *trigger.Trigger) string {
	for _, c := range t.Conditions {
		if c.Type == trigger.TypeSchedule {
			return WakeAtTime
		}
	}
	return WakeOnState
}

// WakeLead is how far ahead a wall-clock wake must be.
const WakeLead = 30 * time.Second

// wakeable are the statuses a session may be woken from.
var wakeable = []session.Status{session.StatusNeedsInput, session.StatusRunning, session.StatusWaiting}

func refuseWake(u *session.Session) error {
	return invalid("Cannot schedule wake-up", fmt.Sprintf(
		"Session %d is in %q state and cannot be scheduled for wake-up. Only sessions in needs_input, running, waiting can be woken up.", u.ID, u.Status))
}

// WakeAtParams arm a wall-clock wake. WakeAt is the naive local time as given (normalised to
// seconds), At the instant it resolves to.
type WakeAtParams struct {
	SessionID        int64
	WakeAt, Timezone string
	At               time.Time
	Prompt           string
}

// WakeAt arms a wall-clock wake and sleeps the session (now when idle, after its turn when running).
func (s *Service) WakeAt(ctx context.Context, p WakeAtParams) (*trigger.Trigger, *session.Session, error) {
	if !p.At.After(s.now().Add(WakeLead)) {
		return nil, nil, invalid("Cannot schedule wake-up", "wake_at must be more than 30 seconds in the future")
	}
	cond := trigger.Condition{Type: trigger.TypeSchedule, Config: map[string]any{"scheduled_at": p.WakeAt, "timezone": p.Timezone}}
	return s.armWake(ctx, p.SessionID, fmt.Sprintf("Wake session #%d at %s", p.SessionID, p.WakeAt), p.Prompt, []trigger.Condition{cond}, nil)
}

// WatchParams arm a wake on another session's state.
type WatchParams struct {
	SessionID, WatchedID int64
	Events               []string
	Prompt               string
}

// WakeOnState arms one trigger with a condition per event on the watched session and sleeps
// the requester. A watched session already resting in a watched state fires it at once, so a
// late watcher never sleeps forever.
func (s *Service) WakeOnState(ctx context.Context, p WatchParams) (*trigger.Trigger, *session.Session, error) {
	if p.SessionID == p.WatchedID {
		return nil, nil, invalid("Cannot watch", fmt.Sprintf("watched_session_id (%d) is the same as the requester session id. A session cannot wake on its own state change; use wake_me_up_later for a deadline.", p.WatchedID))
	}
	watched, err := s.store.GetSession(ctx, p.WatchedID)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, nil, invalid("Cannot watch", fmt.Sprintf("Could not look up watched session %d: session not found. Check the id with quick_search_sessions.", p.WatchedID))
	}
	if err != nil {
		return nil, nil, err
	}
	for _, ev := range p.Events {
		if watched.Status == session.StatusArchived || (ev == trigger.EventFailed && watched.Status == session.StatusFailed) {
			return nil, nil, invalid("Cannot watch", fmt.Sprintf("Session %d is already %s, so %s would never fire. Read its result with get_session instead of waiting for it.", watched.ID, watched.Status, ev))
		}
	}
	conds := make([]trigger.Condition, len(p.Events))
	for i, ev := range p.Events {
		conds[i] = trigger.Condition{Type: trigger.TypeAOEvent, Config: map[string]any{"event_name": ev, "watched_session_id": p.WatchedID}}
	}
	name := fmt.Sprintf("Wake session #%d on %s of session #%d", p.SessionID, strings.Join(p.Events, " or "), p.WatchedID)
	return s.armWake(ctx, p.SessionID, name, p.Prompt, conds, watched)
}

func (s *Service) armWake(ctx context.Context, id int64, name, prompt string, conds []trigger.Condition, watched *session.Session) (*trigger.Trigger, *session.Session, error) {
	target, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Contains(wakeable, target.Status) {
		return nil, nil, refuseWake(target)
	}
	t := &trigger.Trigger{Name: name, Status: trigger.StatusEnabled, AgentRootName: target.AgentRoot(), PromptTemplate: prompt,
		ReuseSession: true, LastSessionID: &id, Conditions: conds}
	if t.AgentRootName == "" {
		t.AgentRootName = target.AgentRuntime // a session made without a root is woken, never spawned for
	}
	if bad := trigger.Validate(t); len(bad) > 0 {
		return nil, nil, invalid("Validation failed", bad...)
	}
	saved, err := s.store.SaveTrigger(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	s.triggerObserver().ObserveWakeArmed(wakeKind(saved))
	slept, err := s.autoSleep(ctx, id)
	if err != nil {
		return saved, nil, err
	}
	if watched != nil {
		s.fireIfAlreadyThere(ctx, saved, watched)
	}
	return saved, slept, nil
}

// autoSleep: an idle session sleeps now, a running one when its turn ends, a waiting one stays.
func (s *Service) autoSleep(ctx context.Context, id int64) (*session.Session, error) {
	return s.update(ctx, id, func(u *session.Session) error {
		switch u.Status {
		case session.StatusRunning:
			u.Metadata[session.MetaPendingSleep] = true
		case session.StatusNeedsInput:
			return s.applyEvent(u, session.EventSleep, "Cannot sleep")
		}
		return nil
	})
}

// fireIfAlreadyThere queues the watcher's fire when the watched session already rests in a
// state it waits for.
func (s *Service) fireIfAlreadyThere(ctx context.Context, t *trigger.Trigger, watched *session.Session) {
	for _, c := range t.Conditions {
		if c.EventName() == trigger.EventNeedsInput && watched.Status == session.StatusNeedsInput {
			ctx, cancel := afterCommit(ctx)
			defer cancel()
			if err := s.queueSessionEvent(ctx, watched.ID, trigger.EventNeedsInput, fmt.Sprintf("armed-%d", t.ID)); err != nil {
				s.log.Warn("a watcher armed on a resting session was not fired", "trigger_id", t.ID, "err", err)
			}
			return
		}
	}
}

// armedWake: a wake that has not fired and is not parked failed.
func armedWake(t *trigger.Trigger) bool {
	if !t.OneTime() || t.Status != trigger.StatusEnabled {
		return false
	}
	return !slices.ContainsFunc(t.Conditions, func(c trigger.Condition) bool { return c.Spent() })
}

// ArmedWakes lists the wakes still waiting to resume the session.
func (s *Service) ArmedWakes(ctx context.Context, sessionID int64) ([]*trigger.Trigger, error) {
	list, err := s.store.WakesOfSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(t *trigger.Trigger) bool { return !armedWake(t) }), nil
}

// asleepOnWake reports whether the session should rest asleep: a wake is armed for it. A read
// that fails says no — the session rests in needs_input, where a human sees it.
func (s *Service) asleepOnWake(ctx context.Context, sessionID int64) bool {
	wakes, err := s.ArmedWakes(ctx, sessionID)
	if err != nil {
		s.log.Warn("armed wakes not read; the session rests awake", "session_id", sessionID, "err", err)
	}
	return len(wakes) > 0
}

// WakeLine describes one armed wake in a sentence ("Its own wake-up" lines).
func WakeLine(t *trigger.Trigger) string {
	var parts []string
	for _, c := range t.Conditions {
		switch c.Type {
		case trigger.TypeSchedule:
			tz := c.Str("timezone")
			if tz == "" {
				tz = "UTC"
			}
			parts = append(parts, fmt.Sprintf("at %s (%s)", c.Str("scheduled_at"), tz))
		case trigger.TypeAOEvent:
			parts = append(parts, fmt.Sprintf("on %s of session #%d", c.EventName(), c.WatchedSessionID()))
		}
	}
	return fmt.Sprintf("trigger #%d wakes it %s", t.ID, strings.Join(parts, " or "))
}

// CancelWakes ends every wake of the session that is not parked failed (a takeover); it
// reports how many it removed.
func (s *Service) CancelWakes(ctx context.Context, sessionID int64) (int, error) {
	list, err := s.store.WakesOfSession(ctx, sessionID)
	if err != nil {
		return 0, err
	}
	var ids []int64
	for _, t := range list {
		if t.Status != trigger.StatusFailed {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	return s.store.DeleteTriggers(ctx, ids)
}

// RemoveWatchers drops the ao_event conditions that watch an archived session, except the
// session_archived ones its archive fires; a trigger left with no condition is deleted. The
// session's own wakes end with it.
func (s *Service) RemoveWatchers(ctx context.Context, sessionID int64) error {
	ids, err := s.store.WatchersOfSession(ctx, sessionID)
	if err != nil {
		return err
	}
	var empty []int64
	for _, id := range ids {
		var left int
		_, err := s.store.UpdateTrigger(ctx, id, func(t *trigger.Trigger) error {
			t.Conditions = slices.DeleteFunc(t.Conditions, func(c trigger.Condition) bool {
				return c.WatchedSessionID() == sessionID && c.EventName() != trigger.EventArchived
			})
			left = len(t.Conditions)
			if left == 0 {
				return errNotArmed // nothing to save: the trigger is deleted below
			}
			return nil
		})
		switch {
		case errors.Is(err, errNotArmed):
			empty = append(empty, id)
		case err != nil && !errors.Is(err, graph.ErrNotFound):
			return err
		}
	}
	if len(empty) > 0 {
		if _, err := s.store.DeleteTriggers(ctx, empty); err != nil {
			return err
		}
	}
	_, err = s.CancelWakes(ctx, sessionID)
	return err
}
