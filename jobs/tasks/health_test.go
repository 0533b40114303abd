package tasks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// ownQueue is a queue on a Redis of the test's own: the lanes, pauses and cooldowns a test sees
// are only its own.
func ownQueue(t *testing.T) (*tasks.Queue, *graphtest.Redis, *asynq.Client) {
	t.Helper()
	r := graphtest.StartRedis(t, "health-"+graphtest.Unique(t, "pw"))
	q, err := tasks.OpenQueue(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	conn, _ := asynq.ParseRedisURI(r.URL)
	c := asynq.NewClient(conn)
	t.Cleanup(func() { c.Close() })
	return q, r, c
}

func enqueue(t *testing.T, c *asynq.Client, lane, typ string, n int, opts ...asynq.Option) {
	t.Helper()
	for range n {
		if _, err := c.Enqueue(asynq.NewTask(typ, []byte("{}"), append([]asynq.Option{asynq.Queue(lane)}, opts...)...)); err != nil {
			t.Fatal(err)
		}
	}
}

func lane(t *testing.T, lanes []tasks.LaneHealth, name string) tasks.LaneHealth {
	t.Helper()
	for _, l := range lanes {
		if l.Lane == name {
			return l
		}
	}
	t.Fatalf("lane %s missing from %+v", name, lanes)
	return tasks.LaneHealth{}
}

func TestHealthCountsReadyWorkByLaneAndTypeWithTheHeadOfLineAge(t *testing.T) {
	q, _, c := ownQueue(t)
	enqueue(t, c, tasks.LaneDefault, "demo:old", 1)
	time.Sleep(1100 * time.Millisecond) // the head has waited a second when the rest arrive
	enqueue(t, c, tasks.LaneDefault, "demo:new", 3)
	enqueue(t, c, tasks.LaneTriggers, "demo:trigger", 2)
	enqueue(t, c, tasks.LaneDefault, "demo:later", 1, asynq.ProcessIn(time.Hour))

	lanes, err := q.Health()
	if err != nil {
		t.Fatal(err)
	}
	def := lane(t, lanes, tasks.LaneDefault)
	if def.Pending != 4 || def.Scheduled != 1 || def.PendingByType["demo:old"] != 1 || def.PendingByType["demo:new"] != 3 || def.TypesCounted != 4 {
		t.Errorf("default lane = %+v; want 4 ready (1 demo:old, 3 demo:new) and 1 scheduled", def)
	}
	if def.HeadType != "demo:old" || def.HeadAge < time.Second {
		t.Errorf("default head = %s aged %s; want demo:old, at least 1s", def.HeadType, def.HeadAge)
	}
	if def.Concurrency != tasks.LaneConcurrency[tasks.LaneDefault] || def.Servers != 0 || def.InFlight != 0 {
		t.Errorf("default lane workers = %+v; want its configured concurrency and no server", def)
	}
	if tr := lane(t, lanes, tasks.LaneTriggers); tr.Pending != 2 || tr.HeadType != "demo:trigger" {
		t.Errorf("triggers lane = %+v; want 2 ready demo:trigger", tr)
	}
	if a := lane(t, lanes, tasks.LaneAgents); a.Pending != 0 || a.HeadType != "" {
		t.Errorf("agents lane = %+v; want nothing waiting", a)
	}
	if longest, ok := tasks.LongestWaiting(lanes); !ok || longest.Lane != tasks.LaneDefault {
		t.Errorf("longest waiting = %+v, %v; want the default lane", longest, ok)
	}
}

func TestHealthReportsWhatARunningWorkerHolds(t *testing.T) {
	q, r, c := ownQueue(t)
	conn, _ := asynq.ParseRedisURI(r.URL)
	hold := make(chan struct{})
	started := make(chan struct{}, 2)
	srv := asynq.NewServer(conn, asynq.Config{Concurrency: 3, Queues: map[string]int{tasks.LaneMaintenance: 1},
		TaskCheckInterval: 50 * time.Millisecond, Logger: quiet{}})
	mux := asynq.NewServeMux()
	mux.HandleFunc("demo:slow", func(context.Context, *asynq.Task) error { started <- struct{}{}; <-hold; return nil })
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	defer close(hold)
	enqueue(t, c, tasks.LaneMaintenance, "demo:slow", 1)
	<-started
	time.Sleep(300 * time.Millisecond)
	enqueue(t, c, tasks.LaneMaintenance, "demo:slow", 1)
	<-started

	var m tasks.LaneHealth
	deadline := time.Now().Add(30 * time.Second)
	for m.InFlight < 2 && time.Now().Before(deadline) { // the server's heartbeat reports every few seconds
		lanes, err := q.Health()
		if err != nil {
			t.Fatal(err)
		}
		m = lane(t, lanes, tasks.LaneMaintenance)
		time.Sleep(200 * time.Millisecond)
	}
	if m.Servers != 1 || m.InFlight != 2 || m.Active != 2 {
		t.Fatalf("maintenance lane = %+v; want 1 server holding 2 tasks", m)
	}
	if !m.OldestStart.Before(m.YoungestStart) || m.YoungestStart.Sub(m.OldestStart) < 200*time.Millisecond {
		t.Errorf("oldest %s, youngest %s; want the first start before the second by ~300ms", m.OldestStart, m.YoungestStart)
	}
}

type quiet struct{}

func (quiet) Debug(...any) {}
func (quiet) Info(...any)  {}
func (quiet) Warn(...any)  {}
func (quiet) Error(...any) {}
func (quiet) Fatal(...any) {}

func TestTheCooldownAdmitsOneRunPerActionAndCallerAndReleasesAFailedOne(t *testing.T) {
	q, r, _ := ownQueue(t)
	ctx := context.Background()
	take := func(action, caller string) (bool, time.Duration) {
		t.Helper()
		ok, left, err := q.TakeCooldown(ctx, action, caller, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return ok, left
	}
	if ok, _ := take("archive_old", "aaaa"); !ok {
		t.Fatal("first run refused")
	}
	if ok, left := take("archive_old", "aaaa"); ok || left < 28*time.Second || left > 30*time.Second {
		t.Errorf("second run within the period: admitted %v, %s left; want refused with about 30s left", ok, left)
	}
	if ok, _ := take("archive_old", "bbbb"); !ok {
		t.Error("another caller was throttled by the first one's run")
	}
	if ok, _ := take("retry_sessions", "aaaa"); !ok {
		t.Error("another action was throttled by the first one's run")
	}
	if err := q.ReleaseCooldown(ctx, "archive_old", "aaaa"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := take("archive_old", "aaaa"); !ok {
		t.Error("a released run still holds the cooldown")
	}

	r.Stop()
	ok, _, err := q.TakeCooldown(ctx, "cleanup_processes", "cccc", 30*time.Second)
	if ok || !errors.Is(err, tasks.ErrCooldownUnavailable) {
		t.Fatalf("with Redis stopped: admitted %v, err %v; want refused with ErrCooldownUnavailable", ok, err)
	}
}

func TestQueuedJobMaintenanceActsOnlyOnTheExactCountItPreviewed(t *testing.T) {
	q, _, c := ownQueue(t)
	enqueue(t, c, tasks.LaneDefault, "demo:flood", 5)
	enqueue(t, c, tasks.LaneDefault, "demo:keep", 2)
	enqueue(t, c, tasks.LanePollers, "demo:flood", 1, asynq.ProcessIn(time.Hour))
	enqueue(t, c, tasks.LaneAgents, tasks.TypeRunSession, 1)
	flood := tasks.JobScope{Type: "demo:flood"}

	m, err := q.MatchQueued(flood)
	if err != nil {
		t.Fatal(err)
	}
	if m.Matched != 6 || m.ByLane[tasks.LaneDefault] != 5 || m.ByLane[tasks.LanePollers] != 1 || m.OverCap {
		t.Fatalf("preview = %+v; want 6 (5 ready on default, 1 scheduled on pollers)", m)
	}

	for _, wrong := range []int{5, 7, 0} {
		res, err := q.DiscardQueued(flood, wrong)
		if !errors.Is(err, tasks.ErrJobsMismatch) || res.Affected != 0 {
			t.Fatalf("discard expecting %d: %+v, %v; want refused", wrong, res, err)
		}
		if want := "but 6 job(s) match now (demo:flood=6)"; !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not give the real count and breakdown %q", err, want)
		}
	}
	if again, _ := q.MatchQueued(flood); again.Matched != 6 {
		t.Fatalf("after refused discards %d match; want all 6 still queued", again.Matched)
	}

	for _, sc := range []tasks.JobScope{{Lane: tasks.LaneAgents}, {Type: tasks.TypeRunSession}, {Type: tasks.TypeQueueRecoveryCheck}, {}} {
		if _, err := q.DiscardQueued(sc, 1); !errors.Is(err, tasks.ErrJobsProtected) && !errors.Is(err, tasks.ErrJobsUnscoped) {
			t.Errorf("discard of %+v: %v; want refused up front", sc, err)
		}
	}

	res, err := q.RescheduleQueued(context.Background(), tasks.JobScope{Type: "demo:keep", Lane: tasks.LaneDefault}, 2, time.Now().Add(time.Hour))
	if err != nil || res.Affected != 2 {
		t.Fatalf("reschedule: %+v, %v; want 2 moved", res, err)
	}
	res, err = q.DiscardQueued(flood, 6)
	if err != nil || res.Affected != 6 || len(res.Skipped) != 0 {
		t.Fatalf("discard with the previewed count: %+v, %v; want 6 discarded", res, err)
	}
	lanes, err := q.Health()
	if err != nil {
		t.Fatal(err)
	}
	if d, a := lane(t, lanes, tasks.LaneDefault), lane(t, lanes, tasks.LaneAgents); d.Pending != 0 || d.Scheduled != 2 || a.Pending != 1 {
		t.Errorf("after: default %d ready, %d scheduled; agents %d ready; want 0, 2 (rescheduled), 1 (untouched)", d.Pending, d.Scheduled, a.Pending)
	}
}

// A lane no task has reached yet reads as empty, not as an error (Asynq's not-found error from
// GetQueueInfo does not unwrap to its sentinel, so every scrape of a fresh Redis used to fail).
func TestLaneDepthsOfAFreshRedisAreEmptyLanesNotAnError(t *testing.T) {
	q, _, _ := ownQueue(t)
	depths, err := q.LaneDepths()
	if err != nil || len(depths) != len(tasks.Lanes()) {
		t.Fatalf("LaneDepths = %+v, %v; want every lane, empty, and no error", depths, err)
	}
}
