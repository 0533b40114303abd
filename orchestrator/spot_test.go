package orchestrator_test

import (
	"context"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

func TestTheSpotSchedulerResumesParkedSessionsOldestFirstWithinTheFreeSlots(t *testing.T) {
	clk := &clock{now: time.Date(2030, 1, 2, 3, 0, 0, 0, time.UTC)}
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, Now: clk.Now})
	ctx := context.Background()
	label := graphtest.Unique(t, "spot")
	scope := orchestrator.SweepScope{Text: label}
	park := func(edit func(*session.Session)) *session.Session {
		s := graphtest.Session(t, e.Store, func(d *session.Session) {
			d.Status = session.StatusNeedsInput
			d.Metadata[session.MetaRuntimeStarted] = true
			d.CustomMetadata["spot_label"] = label
			if edit != nil {
				edit(d)
			}
		})
		if _, _, err := e.Ops.PauseIntoSpotQueue(ctx, s.ID, false); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		return s
	}
	oldest, middle := park(nil), park(nil)
	prompt := "the original task"
	neverRan := park(func(d *session.Session) { delete(d.Metadata, session.MetaRuntimeStarted); d.Prompt = &prompt })

	if got, err := e.Ops.SweepSpot(ctx, 0, scope); err != nil || got.Resumed != 0 {
		t.Fatalf("no free slot resumes nothing: %+v %v", got, err)
	}
	got, err := e.Ops.SweepSpot(ctx, 2, scope)
	if err != nil || got.Resumed != 2 {
		t.Fatalf("two free slots resume two: %+v %v", got, err)
	}
	resumed := func(s *session.Session) (bool, string) {
		t.Helper()
		now, err := e.Ops.Get(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := now.Metadata[session.MetaPendingDispatch].(map[string]any)
		return now.Status == session.StatusRunning && now.Metadata[session.MetaSpotQueuedAt] == nil, session.BagString(p, "prompt")
	}
	for _, s := range []*session.Session{oldest, middle} {
		if ok, p := resumed(s); !ok || p != orchestrator.SpotResumePrompt {
			t.Fatalf("session %d (parked earlier) must be resumed with the spot nudge, got %v %q", s.ID, ok, p)
		}
	}
	if ok, _ := resumed(neverRan); ok {
		t.Fatal("the most recently parked session waits for the next free slot")
	}
	got, err = e.Ops.SweepSpot(ctx, 2, scope)
	if err != nil || got.Resumed != 1 {
		t.Fatalf("the next tick resumes the one left: %+v %v", got, err)
	}
	if ok, p := resumed(neverRan); !ok || p != prompt {
		t.Fatalf("a session that never ran starts with its own prompt, got %v %q", ok, p)
	}
	if got, err := e.Ops.SweepSpot(ctx, 2, scope); err != nil || got.Resumed != 0 {
		t.Fatalf("nothing is parked any more: %+v %v", got, err)
	}
}

func TestASpotParkedSessionResumesWithItsQueuedMessageFirst(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	label := graphtest.Unique(t, "spotq")
	s := graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Status = session.StatusNeedsInput
		d.Metadata[session.MetaRuntimeStarted] = true
		d.CustomMetadata["spot_label"] = label
	})
	if _, _, err := e.Ops.PauseIntoSpotQueue(ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Store.CreateMessage(ctx, s.ID, session.NewMessage{Content: "queued while parked"}); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Ops.SweepSpot(ctx, 1, orchestrator.SweepScope{Text: label}); err != nil || got.Resumed != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	now, err := e.Ops.Get(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := now.Metadata[session.MetaPendingDispatch].(map[string]any); session.BagString(p, "prompt") != "queued while parked" {
		t.Fatalf("the queued message is the resumed turn, got %v", now.Metadata[session.MetaPendingDispatch])
	}
}

func TestAParkedSessionWithNothingToRunLeavesTheSpotQueue(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	label := graphtest.Unique(t, "spotnone")
	s := graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Status = session.StatusNeedsInput // never ran and has no prompt: nothing to start it with
		d.CustomMetadata["spot_label"] = label
	})
	if _, _, err := e.Ops.PauseIntoSpotQueue(ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Ops.SweepSpot(ctx, 1, orchestrator.SweepScope{Text: label}); err != nil || got.Resumed != 0 {
		t.Fatalf("%+v %v", got, err)
	}
	now, err := e.Ops.Get(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if now.Status != session.StatusWaiting || now.Metadata[session.MetaSpotQueuedAt] != nil {
		t.Fatalf("it waits for a human, out of the queue (so it never holds a slot's turn): %s %v", now.Status, now.Metadata[session.MetaSpotQueuedAt])
	}
}
