package session

import (
	"errors"
	"fmt"
	"slices"
)

// Status is where a session is in its lifecycle.
type Status string

// The five statuses.
const (
	StatusWaiting    Status = "waiting"     // queued, held, or dormant awaiting a wake
	StatusRunning    Status = "running"     // a process is alive and a job owns it
	StatusNeedsInput Status = "needs_input" // the turn ended: the human's to-do list
	StatusFailed     Status = "failed"      // terminal error, resumable
	StatusArchived   Status = "archived"    // trash, restorable
)

// Statuses lists every status in display order.
var Statuses = []Status{StatusWaiting, StatusRunning, StatusNeedsInput, StatusFailed, StatusArchived}

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Event is a lifecycle transition's name.
type Event string

// Every event of the original state machine.
const (
	EventStart                  Event = "start"
	EventSleep                  Event = "sleep"
	EventPause                  Event = "pause"
	EventResume                 Event = "resume"
	EventBlockOnElicitation     Event = "block_on_elicitation"
	EventUnblockFromElicitation Event = "unblock_from_elicitation"
	EventFail                   Event = "fail"
	EventArchive                Event = "archive"
	EventUnarchiveToWaiting     Event = "unarchive_to_waiting"
	EventUnarchiveToNeedsInput  Event = "unarchive_to_needs_input"
	EventUnarchiveToFailed      Event = "unarchive_to_failed"
)

// Effect names a side effect an event carries; effects run in the listed order after the
// status change and are best-effort: a failing effect is logged, never undoes the transition.
type Effect string

// Effects of the lifecycle, named after what they do.
const (
	EffectResetElapsed          Effect = "reset_elapsed_time"
	EffectLog                   Effect = "log"
	EffectWarnUncapturedPR      Effect = "warn_pr_goal_without_pr"
	EffectClearRunningJob       Effect = "clear_running_job_id"
	EffectClearAuthRecovery     Effect = "clear_auth_recovery_budget"
	EffectFireTriggers          Effect = "fire_ao_event_triggers"
	EffectPushNeedsInput        Effect = "debounced_needs_input_push"
	EffectPushFailed            Effect = "push_session_failed"
	EffectInferTitle            Effect = "enqueue_title_inference"
	EffectRefreshStatusSummary  Effect = "enqueue_status_summary_refresh"
	EffectExecutePendingSleep   Effect = "execute_pending_sleep"
	EffectScheduleDrain         Effect = "schedule_enqueued_message_drain"
	EffectClearStaleMCPFailure  Effect = "clear_stale_mcp_failure_keys"
	EffectClearResumeMarkers    Effect = "clear_resume_markers"
	EffectMarkNotificationStale Effect = "mark_notifications_stale"
	EffectCancelOneTimeWakes    Effect = "cancel_pending_one_time_wakes"
	EffectMarkBlocked           Effect = "set_blocked_on_elicitation"
	EffectClearBlocked          Effect = "clear_blocked_on_elicitation"
	EffectRecordFailure         Effect = "log_failure_reason"
	EffectSetArchivedAt         Effect = "set_archived_at_and_trash_after"
	EffectRetireQueued          Effect = "retire_pending_messages_undelivered"
	EffectDeleteNotifications   Effect = "delete_notifications"
	EffectRemoveWatchers        Effect = "remove_ao_event_watchers"
	EffectCleanupClone          Effect = "enqueue_deferred_clone_cleanup"
	EffectClearTrashAfter       Effect = "clear_trash_after"
)

// deferred are the effects that run after commit, from the durable record the transition
// writes (they reach other records, the queue or the outside world). The others are bookkeeping
// on the session itself, done by the operation inside the transition's transaction.
var deferred = []Effect{EffectFireTriggers, EffectPushNeedsInput, EffectPushFailed, EffectInferTitle,
	EffectRefreshStatusSummary, EffectScheduleDrain, EffectMarkNotificationStale, EffectCancelOneTimeWakes,
	EffectDeleteNotifications, EffectRemoveWatchers, EffectCleanupClone}

// Deferred reports whether e runs after commit rather than inside the transition.
func (e Effect) Deferred() bool { return slices.Contains(deferred, e) }

// DeferredEffects keeps the effects of effs that run after commit, in order.
func DeferredEffects(effs []Effect) []Effect {
	return slices.DeleteFunc(slices.Clone(effs), func(e Effect) bool { return !e.Deferred() })
}

// Guard is what an event's guard may look at besides the current status.
type Guard struct {
	HasGitRoot           bool
	BlockedOnElicitation bool
}

type rule struct {
	from    []Status
	to      Status
	guard   func(Guard) string // returns the refusal reason, or ""
	effects []Effect
}

var active = []Status{StatusWaiting, StatusRunning, StatusNeedsInput, StatusFailed}

var rules = map[Event]rule{
	EventStart: {from: []Status{StatusWaiting}, to: StatusRunning,
		guard: func(g Guard) string {
			if !g.HasGitRoot {
				return "git_root is missing"
			}
			return ""
		},
		effects: []Effect{EffectResetElapsed, EffectLog}},
	EventSleep: {from: []Status{StatusNeedsInput}, to: StatusWaiting, effects: []Effect{EffectLog}},
	EventPause: {from: []Status{StatusRunning}, to: StatusNeedsInput, effects: []Effect{
		EffectWarnUncapturedPR, EffectClearRunningJob, EffectClearAuthRecovery, EffectFireTriggers,
		EffectPushNeedsInput, EffectInferTitle, EffectRefreshStatusSummary, EffectExecutePendingSleep,
		EffectScheduleDrain}},
	// resume deliberately has no guard: the job validates what it needs.
	EventResume: {from: []Status{StatusWaiting, StatusNeedsInput, StatusFailed}, to: StatusRunning,
		effects: []Effect{EffectClearStaleMCPFailure, EffectClearResumeMarkers, EffectResetElapsed,
			EffectMarkNotificationStale, EffectCancelOneTimeWakes}},
	EventBlockOnElicitation: {from: []Status{StatusRunning}, to: StatusNeedsInput,
		effects: []Effect{EffectLog, EffectMarkBlocked, EffectFireTriggers}},
	EventUnblockFromElicitation: {from: []Status{StatusNeedsInput}, to: StatusRunning,
		guard: func(g Guard) string {
			if !g.BlockedOnElicitation {
				return "the session is not blocked on an elicitation"
			}
			return ""
		},
		effects: []Effect{EffectClearBlocked, EffectMarkNotificationStale}},
	EventFail: {from: []Status{StatusWaiting, StatusRunning, StatusNeedsInput}, to: StatusFailed,
		effects: []Effect{EffectRecordFailure, EffectClearRunningJob, EffectFireTriggers, EffectPushFailed,
			EffectInferTitle, EffectRefreshStatusSummary, EffectWarnUncapturedPR}},
	EventArchive: {from: active, to: StatusArchived, effects: []Effect{
		EffectSetArchivedAt, EffectRetireQueued, EffectLog, EffectClearRunningJob, EffectDeleteNotifications,
		EffectFireTriggers, EffectRemoveWatchers, EffectCleanupClone, EffectWarnUncapturedPR}},
	EventUnarchiveToWaiting:    {from: []Status{StatusArchived}, to: StatusWaiting, effects: []Effect{EffectClearTrashAfter}},
	EventUnarchiveToNeedsInput: {from: []Status{StatusArchived}, to: StatusNeedsInput, effects: []Effect{EffectClearTrashAfter}},
	EventUnarchiveToFailed:     {from: []Status{StatusArchived}, to: StatusFailed, effects: []Effect{EffectClearTrashAfter}},
}

// Events lists every event.
var Events = []Event{EventStart, EventSleep, EventPause, EventResume, EventBlockOnElicitation,
	EventUnblockFromElicitation, EventFail, EventArchive, EventUnarchiveToWaiting,
	EventUnarchiveToNeedsInput, EventUnarchiveToFailed}

// ErrTransition is wrapped by every refused transition.
var ErrTransition = errors.New("transition refused")

// TransitionError says which event was refused from which status, and why.
type TransitionError struct {
	Event  Event
	From   Status
	Reason string
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("cannot %s a session that is %s: %s", e.Event, e.From, e.Reason)
}

// Unwrap lets callers branch with errors.Is(err, ErrTransition).
func (e *TransitionError) Unwrap() error { return ErrTransition }

// Transition returns the status ev leads to from `from`, and the ordered effects it carries.
func Transition(from Status, ev Event, g Guard) (Status, []Effect, error) {
	r, ok := rules[ev]
	if !ok {
		return from, nil, &TransitionError{Event: ev, From: from, Reason: "unknown event"}
	}
	if !slices.Contains(r.from, from) {
		return from, nil, &TransitionError{Event: ev, From: from, Reason: "not allowed from this status"}
	}
	if r.guard != nil {
		if reason := r.guard(g); reason != "" {
			return from, nil, &TransitionError{Event: ev, From: from, Reason: reason}
		}
	}
	return r.to, slices.Clone(r.effects), nil
}

// Can reports whether ev is allowed from `from` under g.
func Can(from Status, ev Event, g Guard) bool {
	_, _, err := Transition(from, ev, g)
	return err == nil
}
