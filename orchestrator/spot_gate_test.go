package orchestrator_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

// quota is a quota source a test sets: the claude_code pool's reading, or none.
type quota struct {
	mu      sync.Mutex
	reading *orchestrator.QuotaReading
}

func (q *quota) set(fiveHour, weekly float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.reading = &orchestrator.QuotaReading{FiveHourPct: fiveHour, WeeklyPct: weekly, Source: "test"}
}

func (q *quota) Utilization(context.Context) (map[string]orchestrator.QuotaReading, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.reading == nil {
		return nil, nil
	}
	return map[string]orchestrator.QuotaReading{"claude_code": *q.reading}, nil
}

// spotEnv is a service on a controllable clock and quota whose gate counts only the test's own
// sessions, with the spot policy set for the test and put back after it.
type spotEnv struct {
	orchestratortest.Env
	clk   *clock
	quota *quota
	fleet string
}

func newSpotEnv(t *testing.T, policy settings.SpotChange) spotEnv {
	t.Helper()
	clk := &clock{now: time.Date(2030, 3, 4, 5, 0, 0, 0, time.UTC)}
	q := &quota{}
	fleet := graphtest.Unique(t, "spotfleet")
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, Now: clk.Now, Quota: q, FleetScope: fleet})
	ctx := context.Background()
	before, err := e.Ops.SpotPolicy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.Ops.UpdateSpotPolicy(context.Background(), settings.SpotChange{GatingEnabled: &before.GatingEnabled,
			FiveHourTargetPct: &before.FiveHourTargetPct, WeeklyTargetPct: &before.WeeklyTargetPct,
			MaxConcurrent: &before.MaxConcurrent, GenesisClasses: before.GenesisClasses})
	})
	if _, err := e.Ops.UpdateSpotPolicy(ctx, policy); err != nil {
		t.Fatal(err)
	}
	return spotEnv{Env: e, clk: clk, quota: q, fleet: fleet}
}

func ptr[T any](v T) *T { return &v }

// start creates a session of the fleet with a prompt, so its start job is queued, and returns
// it with that job's id.
func (e spotEnv) start(t *testing.T, class session.Class) (*session.Session, string) {
	t.Helper()
	prompt, root := "do the work", "general-agent"
	p := orchestrator.CreateParams{AgentRoot: &root, Prompt: &prompt, Genesis: session.GenesisAPI,
		SchedulingClass: ptr(string(class)), CustomMetadata: map[string]any{"fleet": e.fleet}}
	out, err := e.Ops.Create(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return out.Session, tasks.RunSessionTaskID(out.Session.ID, "start")
}

// running puts n running sessions of the runtime in the fleet.
func (e spotEnv) running(t *testing.T, n int, edit func(*session.Session)) []*session.Session {
	t.Helper()
	var out []*session.Session
	for range n {
		out = append(out, graphtest.Session(t, e.Store, func(d *session.Session) {
			d.Status = session.StatusRunning
			d.CustomMetadata["fleet"] = e.fleet
			if edit != nil {
				edit(d)
			}
		}))
	}
	return out
}

func TestTheSpotGateAdmitsOrHoldsAFirstSpotStart(t *testing.T) {
	tests := []struct {
		name     string
		enabled  bool
		reading  []float64 // 5-hour and weekly percent; nil is no reading
		running  int       // claude_code sessions already running (the ceiling is 3)
		class    session.Class
		wantHeld string // the hold reason; "" is admitted
	}{
		{"gating off admits whatever the pool says", false, []float64{99, 99}, 5, session.ClassSpot, ""},
		{"under both targets and the ceiling", true, []float64{50, 60}, 2, session.ClassSpot, ""},
		{"no reading is open on utilization", true, nil, 0, session.ClassSpot, ""},
		{"the 5-hour window at its target", true, []float64{80, 10}, 0, session.ClassSpot, orchestrator.SpotAtUtilization},
		{"the week over its target", true, []float64{10, 95}, 0, session.ClassSpot, orchestrator.SpotAtUtilization},
		{"the ceiling reached", true, []float64{10, 10}, 3, session.ClassSpot, orchestrator.SpotFleetAtCap},
		{"the ceiling applies with no reading too", true, nil, 3, session.ClassSpot, orchestrator.SpotFleetAtCap},
		{"a priority session is never held", true, []float64{99, 99}, 5, session.ClassPriority, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSpotEnv(t, settings.SpotChange{GatingEnabled: &tt.enabled, FiveHourTargetPct: ptr(80), WeeklyTargetPct: ptr(90), MaxConcurrent: ptr(3)})
			if tt.reading != nil {
				e.quota.set(tt.reading[0], tt.reading[1])
			}
			e.running(t, tt.running, nil)
			e.running(t, 2, func(d *session.Session) { d.AgentRuntime = "codex" }) // another pool: never counted
			sess, task := e.start(t, tt.class)
			ctx := context.Background()
			claimed, err := e.Ops.ClaimRun(ctx, sess.ID, task, "do the work")
			if tt.wantHeld == "" {
				if err != nil || claimed.Status != session.StatusRunning {
					t.Fatalf("want admitted and running, got %v %v", claimed, err)
				}
				return
			}
			if !errors.Is(err, orchestrator.ErrSpotHeld) {
				t.Fatalf("want ErrSpotHeld, got %v", err)
			}
			now, err := e.Ops.Get(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if now.Status != session.StatusWaiting || session.BagString(now.Metadata, session.MetaSpotHoldReason) != tt.wantHeld ||
				session.BagString(now.Metadata, session.MetaSpotHoldDetail) == "" {
				t.Fatalf("a held session stays waiting and records why: %s %v", now.Status, now.Metadata)
			}
		})
	}
}

func TestAHeldStartRetriesWithBackOffAndTheStrandedStartSweepLeavesItAlone(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GatingEnabled: ptr(true), FiveHourTargetPct: ptr(80), WeeklyTargetPct: ptr(80), MaxConcurrent: ptr(10)})
	e.quota.set(85, 20)
	ctx := context.Background()
	sess, task := e.start(t, session.ClassSpot)
	var waits []time.Duration
	for range 5 {
		if _, err := e.Ops.ClaimRun(ctx, sess.ID, task, "do the work"); !errors.Is(err, orchestrator.ErrSpotHeld) {
			t.Fatalf("want held, got %v", err)
		}
		now, err := e.Ops.Get(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := now.Metadata[session.MetaPendingDispatch].(map[string]any)
		retry := session.BagString(p, "task_id")
		if retry == task || retry == "" || now.JobID == nil || *now.JobID != retry {
			t.Fatalf("the start moves to a retry task recorded as the pending dispatch and the job: %v %v", p, now.JobID)
		}
		if queued, err := e.Queue.TaskQueued(ctx, tasks.LaneAgents, retry); err != nil || !queued {
			t.Fatalf("the retry task %s must be scheduled: %v %v", retry, queued, err)
		}
		at, err := time.Parse(time.RFC3339, session.BagString(now.Metadata, session.MetaSpotHoldRetryAt))
		if err != nil {
			t.Fatal(err)
		}
		waits = append(waits, at.Sub(e.clk.Now()))
		if n := session.BagInt(now.Metadata, session.MetaSpotHoldCount); n != len(waits) {
			t.Fatalf("hold %d counted as %d", len(waits), n)
		}
		// The sweep for lost jobs sees a live retry task: nothing to queue again, nothing failed.
		if n, err := e.Ops.RedispatchPending(ctx, 0, orchestrator.SweepScope{Text: e.fleet}, e.Queue.RunAlive); err != nil || n != 0 {
			t.Fatalf("the stranded-start sweep must leave a held session alone: %d %v", n, err)
		}
		task = retry
	}
	for i, want := range []time.Duration{10, 20, 40, 60, 60} {
		lo, hi := want*time.Minute, want*time.Minute+want*time.Minute/10+time.Second
		if waits[i] < lo || waits[i] > hi {
			t.Fatalf("hold %d waits %s, want %s plus at most a tenth", i+1, waits[i], lo)
		}
	}
	if held, _, err := e.Ops.SpotCensus(ctx); err != nil || held[orchestrator.SpotAtUtilization] < 1 {
		t.Fatalf("the held-sessions gauge counts it: %v %v", held, err)
	}
	e.quota.set(40, 20)
	claimed, err := e.Ops.ClaimRun(ctx, sess.ID, task, "do the work")
	if err != nil || claimed.Status != session.StatusRunning {
		t.Fatalf("under target the retry task starts it: %v", err)
	}
	if claimed.Metadata[session.MetaSpotHoldReason] != nil || claimed.Metadata[session.MetaSpotHoldCount] != nil {
		t.Fatalf("a start clears the hold record: %v", claimed.Metadata)
	}
}

func TestTheCeilingBackOffStopsAtHalfAnHour(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GatingEnabled: ptr(true), MaxConcurrent: ptr(1)})
	e.running(t, 1, nil)
	ctx := context.Background()
	sess, task := e.start(t, session.ClassSpot)
	var last time.Duration
	for range 4 {
		if _, err := e.Ops.ClaimRun(ctx, sess.ID, task, "do the work"); !errors.Is(err, orchestrator.ErrSpotHeld) {
			t.Fatalf("want held, got %v", err)
		}
		now, _ := e.Ops.Get(ctx, sess.ID)
		p, _ := now.Metadata[session.MetaPendingDispatch].(map[string]any)
		task = session.BagString(p, "task_id")
		at, _ := time.Parse(time.RFC3339, session.BagString(now.Metadata, session.MetaSpotHoldRetryAt))
		last = at.Sub(e.clk.Now())
	}
	if last < 30*time.Minute || last > 33*time.Minute+time.Second {
		t.Fatalf("the fourth ceiling hold waits %s, want 30 minutes plus at most a tenth", last)
	}
}

func TestTheCeilingSweepParksRunningSpotWorkAndResumesTheLongestParkedFirst(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GatingEnabled: ptr(true), FiveHourTargetPct: ptr(80), WeeklyTargetPct: ptr(80), MaxConcurrent: ptr(3)})
	ctx := context.Background()
	scope := orchestrator.SweepScope{Text: e.fleet}
	job := "job-of-a-running-turn"
	prec := int64(0)
	spot := e.running(t, 4, func(d *session.Session) { prec++; d.Precedence = prec; d.RunningJobID = &job }) // precedence 1..4
	e.running(t, 1, func(d *session.Session) { d.SchedulingClass = ptr(session.ClassPriority); d.RunningJobID = &job })

	// Five running against a ceiling of three: the two lowest ranked spot sessions are parked.
	got, err := e.Ops.SweepSpot(ctx, 5, scope)
	if err != nil || got.Parked != 2 {
		t.Fatalf("want two parked, got %+v %v", got, err)
	}
	isParked := func(s *session.Session) bool {
		now, err := e.Ops.Get(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		return now.Metadata[session.MetaSpotQueuedAt] != nil && now.Flag(session.MetaPendingSleep) &&
			session.BagString(now.Metadata, session.MetaSpotPauseReason) == orchestrator.SpotFleetAtCap
	}
	for i, want := range []bool{true, true, false, false} {
		if isParked(spot[i]) != want {
			t.Fatalf("spot session of precedence %d: parked %v, want %v", i+1, !want, want)
		}
	}
	if got, err := e.Ops.SweepSpot(ctx, 5, scope); err != nil || got.Parked != 0 {
		t.Fatalf("sessions already leaving count as gone: %+v %v", got, err)
	}

	// Over a utilization target every running spot session is parked.
	e.quota.set(90, 10)
	if got, err := e.Ops.SweepSpot(ctx, 5, scope); err != nil || got.Parked != 2 {
		t.Fatalf("want the two other spot sessions parked, got %+v %v", got, err)
	}

	// Their turns end: asleep in the queue, parked in precedence order 1, 2 (first sweep), 3, 4.
	for i, s := range spot {
		e.clk.Advance(time.Minute)
		if _, err := e.Store.UpdateSession(ctx, s.ID, func(u *session.Session) error {
			u.Status, u.RunningJobID = session.StatusWaiting, nil
			delete(u.Metadata, session.MetaPendingSleep)
			u.Metadata[session.MetaRuntimeStarted] = true
			u.Metadata[session.MetaSpotQueuedAt] = e.clk.Now().Add(time.Duration(i) * time.Second).Format(time.RFC3339)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	e.quota.set(77, 10) // under the target but within the resume margin
	if got, err := e.Ops.SweepSpot(ctx, 5, scope); err != nil || got.Resumed != 0 || got.Held["claude_code"] == "" {
		t.Fatalf("within five points of the target nothing resumes, and the sweep says why: %+v %v", got, err)
	}
	e.quota.set(50, 10)
	if got, err := e.Ops.SweepSpot(ctx, 1, scope); err != nil || got.Resumed != 1 {
		t.Fatalf("one free slot resumes one: %+v %v", got, err)
	}
	resumed := func(s *session.Session) bool {
		now, _ := e.Ops.Get(ctx, s.ID)
		return now.Status == session.StatusRunning
	}
	if !resumed(spot[0]) || resumed(spot[1]) {
		t.Fatal("the longest parked resumes first")
	}
	// One priority and one resumed spot session run: the ceiling of three leaves room for one more.
	if got, err := e.Ops.SweepSpot(ctx, 5, scope); err != nil || got.Resumed != 1 || !resumed(spot[1]) || resumed(spot[2]) {
		t.Fatalf("resumes stop at the ceiling: %+v %v", got, err)
	}
}

func TestTheLedgerQuotaSourceReadsTokensInEachWindowAgainstTheBudget(t *testing.T) {
	runtime := graphtest.Unique(t, "ledger-runtime") // a pool of its own: the ledger is shared
	clk := &clock{now: time.Now().UTC()}
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, Now: clk.Now,
		TokenBudgets: map[string]orchestrator.TokenBudget{runtime: {FiveHour: 1000, Weekly: 10_000}}})
	ctx := context.Background()
	before, err := e.Ops.SpotPolicy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.Ops.UpdateSpotPolicy(context.Background(), settings.SpotChange{GatingEnabled: &before.GatingEnabled})
	})
	if _, err := e.Ops.UpdateSpotPolicy(ctx, settings.SpotChange{GatingEnabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	s := graphtest.Session(t, e.Store, func(d *session.Session) { d.AgentRuntime = runtime })
	row := func(id string, ago time.Duration, in, out int64) session.TokenUsage {
		return session.TokenUsage{RequestID: graphtest.Unique(t, id), AgentRuntime: runtime, Model: "opus",
			CalledAt: clk.Now().Add(-ago), TokenCounts: session.TokenCounts{InputTokens: in, OutputTokens: out, CacheReadTokens: 1_000_000}}
	}
	if _, err := e.Store.RecordTokenUsage(ctx, s.ID, []session.TokenUsage{
		row("recent", time.Hour, 300, 200),      // both windows
		row("yesterday", 30*time.Hour, 4000, 0), // the week only
		row("last-month", 30*24*time.Hour, 9_000_000, 0),
	}); err != nil {
		t.Fatal(err)
	}
	d, err := e.Ops.SpotDecisionFor(ctx, runtime)
	if err != nil {
		t.Fatal(err)
	}
	if d.Reading == nil || d.Reading.FiveHourPct != 50 || d.Reading.WeeklyPct != 45 || !d.Admit {
		t.Fatalf("want 50%% of the 5-hour budget and 45%% of the week (cache reads not counted), admitted: %+v %+v", d, d.Reading)
	}
	if d, err := e.Ops.SpotDecisionFor(ctx, "codex"); err != nil || d.Reading != nil || d.Reason != orchestrator.SpotNoSnapshot {
		t.Fatalf("a pool without a budget has no reading: %+v %v", d, err)
	}
}
