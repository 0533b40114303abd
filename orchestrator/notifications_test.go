package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// transition moves a session through ev on the operations' write path and returns the id of
// the effect batch it recorded.
func transition(t *testing.T, e orchestratortest.Env, id int64, ev session.Event) string {
	t.Helper()
	s, err := e.Ops.ApplyEvent(context.Background(), id, ev)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d-%d", id, session.BagInt(s.Metadata, session.MetaTransitionSeq))
}

// runEffects runs a batch's effects as the effects task does.
func runEffects(t *testing.T, e orchestratortest.Env, id int64, batch string) {
	t.Helper()
	if err := e.Ops.RunEffects(context.Background(), id, batch); err != nil {
		t.Fatal(err)
	}
}

// running makes a running session, opted in to needs_input pushes or not.
func running(t *testing.T, e orchestratortest.Env, optIn bool) *session.Session {
	t.Helper()
	return graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Status, d.PushNotificationsEnabled = session.StatusRunning, optIn
		d.Metadata[session.MetaFailureMessage] = "The agent exited with status 2"
	})
}

func queued(t *testing.T, e orchestratortest.Env, lane, taskID string) bool {
	t.Helper()
	ok, err := e.Queue.TaskQueued(context.Background(), lane, taskID)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestAPushedMessageIsANotificationReadThenDismissed(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, nil)
	n, err := e.Ops.PushMessage(ctx, s.ID, "  Needs an API key for the Proctor server  ")
	if err != nil {
		t.Fatal(err)
	}
	if n.Type != session.NotifyCustomMessage || n.Message != "Needs an API key for the Proctor server" || n.Read || n.Stale {
		t.Fatalf("pushed %+v", n)
	}
	if !queued(t, e, tasks.LaneDefault, tasks.DeliverNotificationTaskID(n.ID)) {
		t.Fatal("a pushed message's delivery must be queued")
	}
	if list := orchestratortest.NotificationsAbout(t, e.Ops, s.ID); len(list) != 1 || list[0].ID != n.ID || list[0].Session.ID != s.ID {
		t.Fatalf("the active list must show it with its session: %+v", list)
	}
	err = e.Ops.DismissNotification(ctx, n.ID)
	var ve *orchestrator.ValidationError
	if !errors.As(err, &ve) || ve.Label != "Cannot dismiss" || ve.Messages[0] != "Cannot dismiss unread notification" {
		t.Fatalf("dismissing an unread notification must be refused, got %v", err)
	}
	read, err := e.Ops.MarkNotificationRead(ctx, n.ID)
	if err != nil || !read.Read {
		t.Fatalf("mark read: %+v, %v", read, err)
	}
	unread, _, err := e.Ops.Notifications(ctx, orchestrator.NotificationListParams{Status: "unread", PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unread {
		if u.ID == n.ID {
			t.Fatal("a read notification is not listed as unread")
		}
	}
	if err := e.Ops.DismissNotification(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.Ops.Notification(ctx, n.ID)
	var nf *orchestrator.NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, orchestrator.ErrNotificationNotFound) || nf.Message != fmt.Sprintf("Notification not found: %d", n.ID) {
		t.Fatalf("a dismissed notification is not found, got %v", err)
	}
}

func TestAPushNeedsAMessageAndASession(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, nil)
	if _, err := e.Ops.PushMessage(ctx, s.ID, "  "); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("a blank message must be refused, got %v", err)
	}
	if _, err := e.Ops.PushMessage(ctx, -7, "hello"); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Fatalf("a missing session is not found, got %v", err)
	}
	if list := orchestratortest.NotificationsAbout(t, e.Ops, s.ID); len(list) != 0 {
		t.Fatalf("a refused push records nothing: %+v", list)
	}
}

func TestMarkAllReadAndDismissAllReadReachEveryPendingNotification(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, nil)
	for _, m := range []string{"one", "two", "three"} {
		if _, err := e.Ops.PushMessage(ctx, s.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	marked, _, err := e.Ops.MarkAllNotificationsRead(ctx)
	if err != nil || marked < 3 {
		t.Fatalf("marked %d, %v; want at least this test's three", marked, err)
	}
	for _, n := range orchestratortest.NotificationsAbout(t, e.Ops, s.ID) {
		if !n.Read {
			t.Fatalf("notification %d is still unread", n.ID)
		}
	}
	dismissed, _, err := e.Ops.DismissReadNotifications(ctx)
	if err != nil || dismissed < 3 {
		t.Fatalf("dismissed %d, %v; want at least this test's three", dismissed, err)
	}
	if list := orchestratortest.NotificationsAbout(t, e.Ops, s.ID); len(list) != 0 {
		t.Fatalf("read notifications remain: %+v", list)
	}
}

func TestTheFailurePushIsRecordedOncePerFailure(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	failed := running(t, e, false) // no opt-in: a failure is pushed anyway
	batch := transition(t, e, failed.ID, session.EventFail)
	// A task redelivered between running the effect and marking it done runs it again.
	if err := e.Ops.RunEffectAgain(ctx, failed.ID, batch, session.EffectPushFailed); err != nil {
		t.Fatal(err)
	}
	runEffects(t, e, failed.ID, batch)
	list := orchestratortest.NotificationsAbout(t, e.Ops, failed.ID)
	if len(list) != 1 || list[0].Type != session.NotifySessionFailed {
		t.Fatalf("one failure pushed twice recorded %+v; want one session_failed", list)
	}
	if !queued(t, e, tasks.LaneDefault, tasks.DeliverNotificationTaskID(list[0].ID)) {
		t.Fatal("its delivery must be queued")
	}
	push, ok, err := e.Ops.PushFor(ctx, list[0].ID)
	if err != nil || !ok || push.Title != failed.DisplayTitle() || push.Body != "The agent exited with status 2" {
		t.Fatalf("the push names why it failed: %+v %v %v", push, ok, err)
	}

	restarted := running(t, e, false)
	batch = transition(t, e, restarted.ID, session.EventFail)
	transition(t, e, restarted.ID, session.EventResume)
	runEffects(t, e, restarted.ID, batch)
	if list := orchestratortest.NotificationsAbout(t, e.Ops, restarted.ID); len(list) != 0 {
		t.Fatalf("a session restarted before its failure push ran is not pushed: %+v", list)
	}
}

func TestTheNeedsInputPushIsDebouncedAndOptIn(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	optedIn := running(t, e, true)
	batch := transition(t, e, optedIn.ID, session.EventPause)
	runEffects(t, e, optedIn.ID, batch)
	if !queued(t, e, tasks.LaneDefault, tasks.NeedsInputPushTaskID(batch)) {
		t.Fatal("an opted-in pause schedules its debounced push")
	}
	if list := orchestratortest.NotificationsAbout(t, e.Ops, optedIn.ID); len(list) != 0 {
		t.Fatalf("nothing is recorded before the debounce ends: %+v", list)
	}
	silent := running(t, e, false)
	batch = transition(t, e, silent.ID, session.EventPause)
	runEffects(t, e, silent.ID, batch)
	if queued(t, e, tasks.LaneDefault, tasks.NeedsInputPushTaskID(batch)) {
		t.Fatal("a session without pushes schedules nothing")
	}

	optOut := func(t *testing.T, id int64) {
		if _, err := e.Store.UpdateSession(ctx, id, func(u *session.Session) error { u.PushNotificationsEnabled = false; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		then func(t *testing.T, id int64) // what happens during the debounce
		want int
	}{
		{"still resting in the same needs_input: pushed", func(*testing.T, int64) {}, 1},
		{"resumed meanwhile: not pushed", func(t *testing.T, id int64) { transition(t, e, id, session.EventResume) }, 0},
		{"resumed and paused again: left to the later pause", func(t *testing.T, id int64) {
			transition(t, e, id, session.EventResume)
			transition(t, e, id, session.EventPause)
		}, 0},
		{"pushes turned off meanwhile: not pushed", optOut, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := running(t, e, true)
			batch := transition(t, e, s.ID, session.EventPause)
			tt.then(t, s.ID)
			for range 2 { // a retried job
				if err := e.Ops.NeedsInputPush(ctx, s.ID, batch); err != nil {
					t.Fatal(err)
				}
			}
			list := orchestratortest.NotificationsAbout(t, e.Ops, s.ID)
			if len(list) != tt.want {
				t.Fatalf("recorded %d notifications, want %d", len(list), tt.want)
			}
			if tt.want == 1 && list[0].Type != session.NotifyNeedsInput {
				t.Fatalf("recorded %s", list[0].Type)
			}
		})
	}
}

func TestResumeMarksOlderNotificationsStaleAndArchiveDeletesThem(t *testing.T) {
	graphtest.Exclusive(t, "notifications") // read state is shared: another package may mark every notification read
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, func(d *session.Session) { d.Status = session.StatusNeedsInput })
	before, err := e.Ops.PushMessage(ctx, s.ID, "before the resume")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	resume := transition(t, e, s.ID, session.EventResume)
	time.Sleep(5 * time.Millisecond)
	after, err := e.Ops.PushMessage(ctx, s.ID, "after the resume")
	if err != nil {
		t.Fatal(err)
	}
	runEffects(t, e, s.ID, resume)
	if list := orchestratortest.NotificationsAbout(t, e.Ops, s.ID); len(list) != 1 || list[0].ID != after.ID {
		t.Fatalf("only the notification newer than the resume stays active: %+v", list)
	}
	if got, err := e.Ops.Notification(ctx, before.ID); err != nil || !got.Stale {
		t.Fatalf("the older one is stale, not gone: %+v %v", got, err)
	}
	if push, ok, err := e.Ops.PushFor(ctx, before.ID); err != nil || ok {
		t.Fatalf("a stale notification is not delivered: %+v %v %v", push, ok, err)
	}
	archive := transition(t, e, s.ID, session.EventArchive)
	runEffects(t, e, s.ID, archive)
	for _, id := range []int64{before.ID, after.ID} {
		if _, err := e.Ops.Notification(ctx, id); !errors.Is(err, orchestrator.ErrNotificationNotFound) {
			t.Fatalf("an archived session's notification %d must be deleted: %v", id, err)
		}
	}
}
