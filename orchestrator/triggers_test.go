package orchestrator_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/trigger"
)

// clock is a controllable service clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// triggerEnv is a service on a controllable clock with a worker serving the triggers lane (no
// agent runner: a delivered prompt stays pending dispatch, which is what the tests read).
func triggerEnv(t *testing.T) (orchestratortest.Env, *clock, orchestrator.SweepScope) {
	e, c, scope, _ := triggerEnvWithMetrics(t)
	return e, c, scope
}

func triggerEnvWithMetrics(t *testing.T) (orchestratortest.Env, *clock, orchestrator.SweepScope, *metrics.Metrics) {
	t.Helper()
	graphtest.FlushRedis(t, triggerRedisDB)
	c := &clock{now: time.Now().UTC()}
	m := metrics.New()
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: triggerRedisDB, Now: c.Now, TriggerSettle: 300 * time.Millisecond, Observer: m})
	w := jobs.NewWorker(e.Queue, graphtest.Logger(), 5*time.Second)
	scope := orchestrator.SweepScope{Text: graphtest.Unique(t, "trigger-scope")}
	jobs.RegisterTriggers(w, e.Ops, jobs.TriggerOptions{ScheduleEvery: time.Hour, Scope: scope.Text})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return e, c, scope, m
}

// triggerRedisDB is the Redis database of this file's worker (the package's others use redisDB).
const triggerRedisDB = 7

func resting(t *testing.T, e orchestratortest.Env, status session.Status) *session.Session {
	t.Helper()
	return graphtest.Session(t, e.Store, func(d *session.Session) {
		prompt := "work"
		d.Status, d.Prompt = status, &prompt
		d.Metadata[session.MetaAgentRoot] = "general-agent"
		d.CustomMetadata["trigger_test"] = t.Name()
	})
}

func get(t *testing.T, e orchestratortest.Env, id int64) *session.Session {
	t.Helper()
	s, err := e.Ops.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eventually polls cond until it holds, failing with what after half a minute (a bound for a
// loaded machine, not an expectation).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pendingPrompt is the prompt of the session's delivery waiting for its agent job.
func pendingPrompt(s *session.Session) string {
	p, _ := s.Metadata[session.MetaPendingDispatch].(map[string]any)
	prompt, _ := p["prompt"].(string)
	return prompt
}

func wakes(t *testing.T, e orchestratortest.Env, id int64) []*trigger.Trigger {
	t.Helper()
	list, err := e.Ops.ArmedWakes(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestAWakeFiresAtItsTimeAndResumesTheSession(t *testing.T) {
	e, c, scope, m := triggerEnvWithMetrics(t)
	ctx := context.Background()
	s := resting(t, e, session.StatusNeedsInput)
	at := c.Now().Add(time.Hour).Truncate(time.Second)
	wake, slept, err := e.Ops.WakeAt(ctx, orchestrator.WakeAtParams{SessionID: s.ID, WakeAt: at.Format("2006-01-02T15:04:05"),
		Timezone: "UTC", At: at, Prompt: "CI should be done: check it " + scope.Text})
	if err != nil {
		t.Fatal(err)
	}
	if slept.Status != session.StatusWaiting {
		t.Fatalf("arming a wake leaves the session %s; want it asleep (waiting)", slept.Status)
	}
	if n, _ := e.Ops.SweepSchedules(ctx, scope); n != 0 {
		t.Fatalf("the sweep before the wake's time queued %d fires", n)
	}
	c.Advance(time.Hour + time.Second)
	if n, err := e.Ops.SweepSchedules(ctx, scope); err != nil || n != 1 {
		t.Fatalf("the sweep at the wake's time queued %d fires (%v); want 1", n, err)
	}
	eventually(t, "the wake to resume the session", func() bool {
		got := get(t, e, s.ID)
		return got.Status == session.StatusRunning && pendingPrompt(got) == "CI should be done: check it "+scope.Text
	})
	eventually(t, "the fired wake to be consumed", func() bool {
		_, err := e.Store.GetTrigger(ctx, wake.ID)
		return err != nil
	})
	if n, _ := e.Ops.SweepSchedules(ctx, scope); n != 0 {
		t.Fatalf("a consumed wake is still due: %d fires queued", n)
	}
	armed, fired := testutil.ToFloat64(m.WakeUps.WithLabelValues("at_time", "armed")), testutil.ToFloat64(m.WakeUps.WithLabelValues("at_time", "fired"))
	if armed != 1 || fired != 1 {
		t.Fatalf("zimmer_wake_ups_total: armed %v, fired %v; want 1 and 1", armed, fired)
	}
}

func TestAFollowUpToASleepingSessionLeavesItsWakeArmed(t *testing.T) {
	e, c, _ := triggerEnv(t)
	ctx := context.Background()
	s := resting(t, e, session.StatusNeedsInput)
	at := c.Now().Add(2 * time.Hour).Truncate(time.Second)
	wake, _, err := e.Ops.WakeAt(ctx, orchestrator.WakeAtParams{SessionID: s.ID, WakeAt: at.Format("2006-01-02T15:04:05"), Timezone: "UTC", At: at, Prompt: "wake"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Ops.FollowUp(ctx, s.ID, orchestrator.FollowUpParams{Prompt: "a router's redirect"})
	if err != nil || out.Outcome != orchestrator.FollowUpSent {
		t.Fatalf("follow-up: %v %v", out.Outcome, err)
	}
	// The effects framework runs the resume's cancel effect with paused_by as it was: none.
	run := orchestrator.EffectRun{SessionID: s.ID, Batch: fmt.Sprintf("%d-follow-up", s.ID), Event: session.EventResume,
		From: session.StatusWaiting, To: session.StatusRunning, Effect: session.EffectCancelOneTimeWakes}
	if err := e.Ops.CancelOneTimeWakesEffect(ctx, run); err != nil {
		t.Fatal(err)
	}
	if got := wakes(t, e, s.ID); len(got) != 1 || got[0].ID != wake.ID {
		t.Fatalf("after a follow-up the armed wakes are %v; want the wake %d still armed", got, wake.ID)
	}
	// The follow-up's turn ends: the session goes back to sleep on its wake.
	claimed, err := e.Ops.ClaimRun(ctx, s.ID, *get(t, e, s.ID).RunningJobID, "a router's redirect")
	if err != nil {
		t.Fatal(err)
	}
	end, err := e.Ops.FinishTurn(ctx, s.ID, *claimed.RunningJobID)
	if err != nil || end != orchestrator.TurnSlept {
		t.Fatalf("the follow-up's turn ended %q (%v); want it asleep again on its wake", end, err)
	}
	// A human who paused it by hand and resumes it takes it over: that resume ends the wake.
	run.ResumedFrom = orchestrator.PausedByUser
	if err := e.Ops.CancelOneTimeWakesEffect(ctx, run); err != nil {
		t.Fatal(err)
	}
	if got := wakes(t, e, s.ID); len(got) != 0 {
		t.Fatalf("a takeover left %d wakes armed", len(got))
	}
}

// fireOn moves a session as the runner would and runs the fire effect as the effects
// framework does after the commit.
func fireOn(t *testing.T, e orchestratortest.Env, id int64, batch string, ev session.Event, mutate func(*session.Session)) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.Store.UpdateSession(ctx, id, func(u *session.Session) error { mutate(u); return nil }); err != nil {
		t.Fatal(err)
	}
	run := orchestrator.EffectRun{SessionID: id, Batch: batch, Event: ev, Effect: session.EffectFireTriggers}
	if err := e.Ops.FireAOEventTriggers(ctx, run); err != nil {
		t.Fatal(err)
	}
}

func TestAWatcherOnThreeEventsFiresOncePerEventAndNeverOnATurnBoundary(t *testing.T) {
	e, _, _ := triggerEnv(t)
	ctx := context.Background()
	events := map[string]func(*session.Session){
		trigger.EventNeedsInput: func(u *session.Session) { u.Status, u.RunningJobID = session.StatusNeedsInput, nil },
		trigger.EventFailed:     func(u *session.Session) { u.Status, u.RunningJobID = session.StatusFailed, nil },
		trigger.EventArchived:   func(u *session.Session) { u.Status, u.RunningJobID = session.StatusArchived, nil },
	}
	lifecycle := map[string]session.Event{trigger.EventNeedsInput: session.EventPause, trigger.EventFailed: session.EventFail, trigger.EventArchived: session.EventArchive}
	for _, ev := range trigger.Events {
		t.Run(ev, func(t *testing.T) {
			router := resting(t, e, session.StatusNeedsInput)
			child := resting(t, e, session.StatusRunning)
			w, _, err := e.Ops.WakeOnState(ctx, orchestrator.WatchParams{SessionID: router.ID, WatchedID: child.ID, Events: trigger.Events, Prompt: "child moved: " + ev})
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Conditions) != 3 {
				t.Fatalf("event_names made %d conditions; want one trigger with one condition per event", len(w.Conditions))
			}
			// A turn boundary: the child pauses and is running again before it settles.
			fireOn(t, e, child.ID, fmt.Sprintf("%d-1", child.ID), session.EventPause, events[trigger.EventNeedsInput])
			if _, err := e.Store.UpdateSession(ctx, child.ID, func(u *session.Session) error { u.Status = session.StatusRunning; return nil }); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // past the settle delay: its task ran and found no rest
			if got := get(t, e, router.ID); got.Status != session.StatusWaiting || len(wakes(t, e, router.ID)) != 1 {
				t.Fatalf("a turn boundary woke the router (%s) or consumed its watcher", got.Status)
			}
			// The real event, delivered twice (a redelivered effect): one wake.
			batch := fmt.Sprintf("%d-2", child.ID)
			fireOn(t, e, child.ID, batch, lifecycle[ev], events[ev])
			if err := e.Ops.FireAOEventTriggers(ctx, orchestrator.EffectRun{SessionID: child.ID, Batch: batch, Event: lifecycle[ev], Effect: session.EffectFireTriggers}); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the router to be woken", func() bool { return get(t, e, router.ID).Status == session.StatusRunning })
			time.Sleep(500 * time.Millisecond)
			got := get(t, e, router.ID)
			if pendingPrompt(got) != "child moved: "+ev {
				t.Fatalf("the router was woken with %q", pendingPrompt(got))
			}
			if n, _ := e.Store.CountPendingMessages(ctx, router.ID); n != 0 {
				t.Fatalf("the router got %d more messages: the watcher fired more than once", n)
			}
			if _, err := e.Store.GetTrigger(ctx, w.ID); err == nil {
				t.Fatal("the watcher survived its fire")
			}
		})
	}
}

func TestABurstCapSuppressesAndCounts(t *testing.T) {
	e, _, _, m := triggerEnvWithMetrics(t)
	ctx := context.Background()
	capped := int64(2)
	name, root, tmpl := graphtest.Unique(t, "burst"), "general-agent", "issue {{number}}"
	created, _, err := e.Ops.CreateTrigger(ctx, orchestrator.TriggerParams{Name: &name, AgentRootName: &root, PromptTemplate: &tmpl,
		MaxSessionsPerMinute: orchestrator.Opt[int64]{Set: true, Value: &capped},
		Conditions:           []orchestrator.ConditionEdit{{Type: trigger.TypeSystemEvent, Config: map[string]any{"event_name": "quota_available"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []orchestrator.FireOutcome{orchestrator.FireSpawned, orchestrator.FireSpawned, orchestrator.FireBurstNotice,
		orchestrator.FireSuppressed, orchestrator.FireSuppressed}
	var notice *session.Session
	for i, w := range want {
		res, err := e.Ops.InvokeTrigger(ctx, created.ID, map[string]any{"number": i}, nil)
		if err != nil || res.Outcome != w {
			t.Fatalf("fire %d: %s (%v); want %s", i+1, res.Outcome, err, w)
		}
		if w == orchestrator.FireBurstNotice {
			notice = res.Session
		}
	}
	got, err := e.Store.GetTrigger(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionsCreatedCount != 3 || got.Burst.Suppressed != 2 || !got.Bursting(time.Now()) || got.LastTriggeredAt == nil {
		t.Fatalf("counters: created %d, suppressed %d, bursting %v; want 3, 2, true", got.SessionsCreatedCount, got.Burst.Suppressed, got.Bursting(time.Now()))
	}
	for outcome, want := range map[string]float64{"spawned": 2, "burst_notice": 1, "suppressed": 2} {
		if got := testutil.ToFloat64(m.TriggerFires.WithLabelValues("manual", outcome)); got != want {
			t.Errorf("zimmer_trigger_fires_total{manual,%s} = %v; want %v", outcome, got, want)
		}
	}
	if !notice.Flag(session.MetaBurstNotice) || notice.Prompt == nil || !containsAll(*notice.Prompt, fmt.Sprintf("#%d", got.Burst.SessionIDs[0]), "issue 2") {
		t.Fatalf("the burst notice does not link the window's sessions and quote the tipping fire: %v", deref(notice.Prompt))
	}
}

func TestAnArchivedSessionsWatchersAreRemoved(t *testing.T) {
	e, _, _ := triggerEnv(t)
	ctx := context.Background()
	watched := resting(t, e, session.StatusRunning)
	full, _, err := e.Ops.WakeOnState(ctx, orchestrator.WatchParams{SessionID: resting(t, e, session.StatusWaiting).ID, WatchedID: watched.ID, Events: trigger.Events, Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	onlyInput, _, err := e.Ops.WakeOnState(ctx, orchestrator.WatchParams{SessionID: resting(t, e, session.StatusWaiting).ID, WatchedID: watched.ID, Events: []string{trigger.EventNeedsInput}, Prompt: "p"})
	if err != nil {
		t.Fatal(err)
	}
	run := orchestrator.EffectRun{SessionID: watched.ID, Batch: fmt.Sprintf("%d-9", watched.ID), Event: session.EventArchive, Effect: session.EffectRemoveWatchers}
	for range 2 { // a redelivered effect changes nothing more
		if err := e.Ops.RemoveWatchersEffect(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := e.Store.GetTrigger(ctx, full.ID)
	if err != nil || len(kept.Conditions) != 1 || kept.Conditions[0].EventName() != trigger.EventArchived {
		t.Fatalf("the three-event watcher kept %v (%v); want only its session_archived condition, which the archive fires", kept, err)
	}
	if _, err := e.Store.GetTrigger(ctx, onlyInput.ID); err == nil {
		t.Fatal("a watcher left with no condition was not deleted")
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestTwoWakesOfOneSessionFiringAtOnceWakeItOnce(t *testing.T) {
	e, c, scope := triggerEnv(t)
	ctx := context.Background()
	s := resting(t, e, session.StatusNeedsInput)
	var ids []int64
	for i := range 2 {
		at := c.Now().Add(time.Hour + time.Duration(i)*time.Minute).Truncate(time.Second)
		w, _, err := e.Ops.WakeAt(ctx, orchestrator.WakeAtParams{SessionID: s.ID, WakeAt: at.Format("2006-01-02T15:04:05"), Timezone: "UTC", At: at,
			Prompt: fmt.Sprintf("wake %d %s", i, scope.Text)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID)
	}
	c.Advance(2 * time.Hour)
	var fires []tasks.FireTrigger
	for _, id := range ids {
		w, err := e.Store.GetTrigger(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		fires = append(fires, tasks.FireTrigger{TriggerID: id, ConditionID: w.Conditions[0].ID, Key: fmt.Sprintf("race-%d", id)})
	}
	outcomes := make(chan orchestrator.FireOutcome, 2)
	for _, f := range fires {
		go func() {
			res, err := e.Ops.FireCondition(ctx, f)
			if err != nil {
				t.Error(err)
			}
			outcomes <- res.Outcome
		}()
	}
	got := map[orchestrator.FireOutcome]int{<-outcomes: 1}
	got[<-outcomes]++
	if got[orchestrator.FireDelivered] != 1 || got[orchestrator.FireSkipped] != 1 {
		t.Fatalf("two wakes firing at once: %v; want one delivered and one consumed with it", got)
	}
	if n, _ := e.Store.CountPendingMessages(ctx, s.ID); n != 0 || len(wakes(t, e, s.ID)) != 0 {
		t.Fatalf("after the race the session has %d queued messages and %d armed wakes; want none", n, len(wakes(t, e, s.ID)))
	}
}
