package session

import (
	"errors"
	"fmt"
	"testing"
)

// allowed is the specification, written out independently of the rules table: for each event,
// the statuses it may leave and where it goes. Every other (status, event) pair must be refused.
var allowed = map[Event]map[Status]Status{
	EventStart:                  {StatusWaiting: StatusRunning},
	EventSleep:                  {StatusNeedsInput: StatusWaiting},
	EventPause:                  {StatusRunning: StatusNeedsInput},
	EventResume:                 {StatusWaiting: StatusRunning, StatusNeedsInput: StatusRunning, StatusFailed: StatusRunning},
	EventBlockOnElicitation:     {StatusRunning: StatusNeedsInput},
	EventUnblockFromElicitation: {StatusNeedsInput: StatusRunning},
	EventFail:                   {StatusWaiting: StatusFailed, StatusRunning: StatusFailed, StatusNeedsInput: StatusFailed},
	EventArchive: {StatusWaiting: StatusArchived, StatusRunning: StatusArchived,
		StatusNeedsInput: StatusArchived, StatusFailed: StatusArchived},
	EventUnarchiveToWaiting:    {StatusArchived: StatusWaiting},
	EventUnarchiveToNeedsInput: {StatusArchived: StatusNeedsInput},
	EventUnarchiveToFailed:     {StatusArchived: StatusFailed},
}

func TestTransitionCoversEveryStatusAndEvent(t *testing.T) {
	open := Guard{HasGitRoot: true, BlockedOnElicitation: true}
	for _, ev := range Events {
		for _, from := range Statuses {
			want, ok := allowed[ev][from]
			name := fmt.Sprintf("%s from %s", ev, from)
			if ok {
				name += " goes to " + string(want)
			} else {
				name += " is refused"
			}
			t.Run(name, func(t *testing.T) {
				got, effects, err := Transition(from, ev, open)
				if !ok {
					if !errors.Is(err, ErrTransition) {
						t.Fatalf("want a refusal, got %s (err %v)", got, err)
					}
					if got != from || effects != nil {
						t.Fatalf("a refusal must leave the status and carry no effects, got %s %v", got, effects)
					}
					return
				}
				if err != nil {
					t.Fatalf("want %s, got error %v", want, err)
				}
				if got != want {
					t.Fatalf("want %s, got %s", want, got)
				}
			})
		}
	}
}

func TestTransitionGuards(t *testing.T) {
	tests := []struct {
		name   string
		from   Status
		event  Event
		guard  Guard
		reason string
	}{
		{"start refuses a session without a git_root", StatusWaiting, EventStart, Guard{}, "git_root is missing"},
		{"unblock refuses a session not blocked on an elicitation", StatusNeedsInput, EventUnblockFromElicitation,
			Guard{HasGitRoot: true}, "the session is not blocked on an elicitation"},
		{"an unknown event is refused", StatusWaiting, Event("explode"), Guard{HasGitRoot: true}, "unknown event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Transition(tt.from, tt.event, tt.guard)
			var te *TransitionError
			if !errors.As(err, &te) || te.Reason != tt.reason {
				t.Fatalf("want refusal %q, got %v", tt.reason, err)
			}
		})
	}
}

func TestResumeHasNoGuard(t *testing.T) {
	if !Can(StatusFailed, EventResume, Guard{}) {
		t.Fatal("resume must be allowed without a git_root: the job validates")
	}
}

func TestEffectsAreOrdered(t *testing.T) {
	_, effects, err := Transition(StatusRunning, EventArchive, Guard{})
	if err != nil {
		t.Fatal(err)
	}
	if effects[0] != EffectSetArchivedAt || effects[1] != EffectRetireQueued {
		t.Fatalf("archive must set archived_at, then retire pending messages; got %v", effects)
	}
	_, effects, _ = Transition(StatusRunning, EventPause, Guard{})
	if effects[len(effects)-1] != EffectScheduleDrain {
		t.Fatalf("pause must schedule the drain last; got %v", effects)
	}
}

func TestErrorMessageNamesEventAndStatus(t *testing.T) {
	_, _, err := Transition(StatusArchived, EventPause, Guard{})
	if got, want := err.Error(), "cannot pause a session that is archived: not allowed from this status"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
