package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

// The spot gate. A spot session's first start is admitted only while its runtime's account
// pool is under both utilization targets and fewer sessions of that pool run than the ceiling;
// priority sessions are never held but count toward the ceiling. With no utilization reading
// the gate is open on utilization (the ceiling still applies). A held session stays waiting:
// its start job is moved to a retry task due after a back-off, recorded as its pending dispatch
// (so the stranded-start sweep sees a live job, not a lost one), with why beside it. The ceiling
// sweep parks running spot sessions while a pool is over the ceiling or a target, and the spot
// scheduler resumes parked sessions, longest parked first, once the pool is under both again
// (utilization with a margin, so a pool at its target does not flap).

// Reasons the gate gives.
const (
	SpotGatingDisabled   = "gating_disabled"
	SpotNoSnapshot       = "no_snapshot"
	SpotUnderTarget      = "under_target"
	SpotAtUtilization    = "at_utilization_limit"
	SpotFleetAtCap       = "fleet_at_cap"
	spotResumeMarginPct  = 5
	spotHoldBase         = 10 * time.Minute
	spotHoldCapUtil      = 60 * time.Minute
	spotHoldCapCeiling   = 30 * time.Minute
	spotSweepParkPerPool = 100
)

// ErrSpotHeld means the spot gate held the session's first start; it waits for its retry task.
var ErrSpotHeld = errors.New("the spot gate held the start")

// QuotaReading is one runtime account pool's utilization of its two windows, in percent.
type QuotaReading struct {
	FiveHourPct, WeeklyPct float64
	Source                 string // where it came from, for people: "token ledger", "manual"
}

// QuotaSource reads the account pools' utilization, keyed by runtime. A runtime missing from
// the answer has no reading: the gate is open on utilization for it.
type QuotaSource interface {
	Utilization(ctx context.Context) (map[string]QuotaReading, error)
}

// StaticQuota is a reading an operator sets by hand (ZIMMER_SPOT_UTILIZATION).
type StaticQuota map[string]QuotaReading

// Utilization returns the readings as set.
func (q StaticQuota) Utilization(context.Context) (map[string]QuotaReading, error) { return q, nil }

// TokenBudget is what one runtime's pool may spend in each window, in ledger tokens.
type TokenBudget struct {
	FiveHour, Weekly int64
}

// ledgerQuota reads utilization off the token ledger (Deps.TokenBudgets): tokens recorded in
// the window over the pool's budget; a runtime without a budget has no reading. The ledger scan is kept for a minute; the gate asks far more often.
type ledgerQuota struct {
	s       *Service
	budgets map[string]TokenBudget
	mu      sync.Mutex
	last    map[string]QuotaReading
	at      time.Time
}

const ledgerQuotaFresh = time.Minute

func (q *ledgerQuota) Utilization(ctx context.Context) (map[string]QuotaReading, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.s.now()
	if q.last != nil && now.Sub(q.at) < ledgerQuotaFresh && !now.Before(q.at) {
		return q.last, nil
	}
	sums, err := q.s.store.LedgerTokensSince(ctx, now.Add(-5*time.Hour), now.Add(-7*24*time.Hour))
	if err != nil {
		return nil, err
	}
	out := make(map[string]QuotaReading, len(q.budgets))
	for runtime, b := range q.budgets {
		if b.FiveHour <= 0 || b.Weekly <= 0 {
			continue
		}
		used := sums[runtime]
		out[runtime] = QuotaReading{FiveHourPct: 100 * float64(used.FiveHour) / float64(b.FiveHour),
			WeeklyPct: 100 * float64(used.Weekly) / float64(b.Weekly), Source: "token ledger"}
	}
	q.last, q.at = out, now
	return out, nil
}

// SpotDecision is the gate's answer for one runtime pool.
type SpotDecision struct {
	Admit   bool
	Reason  string // one of the Spot* reasons
	Detail  string // one sentence for people
	Running int    // sessions of the pool running now
	Reading *QuotaReading
}

// decideSpot is the gate's rule; margin is how far under a target utilization must be (the
// resume's hysteresis; 0 for a start).
func decideSpot(p settings.Spot, runtime string, r *QuotaReading, running int, margin float64) SpotDecision {
	d := SpotDecision{Admit: true, Running: running, Reading: r}
	if !p.GatingEnabled {
		d.Reason, d.Detail = SpotGatingDisabled, "spot gating is off: spot sessions start like priority ones"
		return d
	}
	if r != nil {
		five, week := float64(p.FiveHourTargetPct)-margin, float64(p.WeeklyTargetPct)-margin
		if r.FiveHourPct >= five || r.WeeklyPct >= week {
			d.Admit, d.Reason = false, SpotAtUtilization
			d.Detail = fmt.Sprintf("the %s pool is at %.0f%% of its 5-hour window and %.0f%% of its week (targets %d%% and %d%%)",
				runtime, r.FiveHourPct, r.WeeklyPct, p.FiveHourTargetPct, p.WeeklyTargetPct)
			if margin > 0 {
				d.Detail += fmt.Sprintf("; parked work resumes %.0f points under them", margin)
			}
			return d
		}
	}
	if running >= p.MaxConcurrent {
		d.Admit, d.Reason = false, SpotFleetAtCap
		d.Detail = fmt.Sprintf("%d %s sessions are running; the ceiling is %d", running, runtime, p.MaxConcurrent)
		return d
	}
	if r == nil {
		d.Reason, d.Detail = SpotNoSnapshot, fmt.Sprintf("no utilization reading for the %s pool: open until one exists", runtime)
		return d
	}
	d.Reason = SpotUnderTarget
	d.Detail = fmt.Sprintf("the %s pool is at %.0f%% of its 5-hour window and %.0f%% of its week, under its targets", runtime, r.FiveHourPct, r.WeeklyPct)
	return d
}

// spotState is one reading of everything the gate decides on.
type spotState struct {
	policy   settings.Spot
	readings map[string]QuotaReading
	pools    map[string]graph.PoolLoad
}

// spotState reads the policy and, while gating is on (or always, for a report), the readings
// and the pools' loads.
func (s *Service) spotState(ctx context.Context, always bool) (spotState, error) {
	p, err := s.store.SpotPolicy(ctx)
	if err != nil {
		return spotState{}, err
	}
	st := spotState{policy: p}
	if !p.GatingEnabled && !always {
		return st, nil
	}
	if s.quota != nil {
		if st.readings, err = s.quota.Utilization(ctx); err != nil {
			return spotState{}, fmt.Errorf("read the quota source: %w", err)
		}
	}
	if st.pools, err = s.store.SpotRunningPools(ctx, s.fleetScope); err != nil {
		return spotState{}, err
	}
	return st, nil
}

func (st spotState) decide(runtime string, margin float64) SpotDecision {
	var r *QuotaReading
	if v, ok := st.readings[runtime]; ok {
		r = &v
	}
	return decideSpot(st.policy, runtime, r, st.pools[runtime].Running, margin)
}

// SpotDecisionFor is what the gate would answer now for a spot start on runtime.
func (s *Service) SpotDecisionFor(ctx context.Context, runtime string) (SpotDecision, error) {
	st, err := s.spotState(ctx, false)
	if err != nil {
		return SpotDecision{}, err
	}
	return st.decide(runtime, 0), nil
}

// gateStart asks the gate about a session a run is about to claim. Only a spot session's first
// start (its creation's start job, the runtime never started) is gated.
func (s *Service) gateStart(ctx context.Context, sessionID int64, taskID string) (*SpotDecision, error) {
	sess, err := s.store.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if !firstSpotStart(sess, taskID) {
		return nil, nil
	}
	d, err := s.SpotDecisionFor(ctx, sess.AgentRuntime)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func firstSpotStart(u *session.Session, taskID string) bool {
	p, pending := pendingOf(u)
	return pending && p.Reason == "start" && p.taskID(u.ID) == taskID && u.Status == session.StatusWaiting &&
		!u.Flag(session.MetaRuntimeStarted) && u.PriorityClass() == session.ClassSpot
}

// holdBackoff is the wait before the n-th hold in a row (from 1) is asked again: 10 minutes
// doubling, up to an hour for utilization and half an hour for the ceiling, plus up to a tenth
// more at random so held sessions do not all come back at once.
func holdBackoff(n int, reason string) time.Duration {
	ceiling := spotHoldCapUtil
	if reason == SpotFleetAtCap {
		ceiling = spotHoldCapCeiling
	}
	wait := spotHoldBase
	for i := 1; i < n && wait < ceiling; i++ {
		wait *= 2
	}
	wait = min(wait, ceiling)
	jitter, _ := rand.Int(rand.Reader, big.NewInt(int64(wait/10)+1))
	return wait + time.Duration(jitter.Int64())
}

// holdStart records the gate's hold on a session the run taskID was queued to start, and moves
// its start to a retry task due after the back-off.
func (s *Service) holdStart(ctx context.Context, sessionID int64, taskID string, d SpotDecision) error {
	token := rand.Text() // drawn outside the retried transaction, so the task id is stable
	var (
		h     *handOff
		count int
		at    time.Time
	)
	_, err := s.update(ctx, sessionID, func(u *session.Session) error {
		h = nil
		if !firstSpotStart(u, taskID) || !claimable(u, taskID) {
			return ErrNotOwner // taken over since it was read
		}
		p, _ := pendingOf(u)
		count = session.BagInt(u.Metadata, session.MetaSpotHoldCount) + 1
		now := s.now().UTC()
		at = now.Add(holdBackoff(count, d.Reason))
		h = &handOff{taskID: tasks.RunSessionTaskID(u.ID, "start-held-"+token), prompt: p.Prompt, reason: p.Reason, at: at}
		p.TaskID, p.Attempts, p.DueAt = h.taskID, 0, at.Format(time.RFC3339Nano)
		u.Metadata[session.MetaPendingDispatch] = p.bag()
		u.JobID = &h.taskID
		u.Metadata[session.MetaSpotHoldAt] = now.Format(time.RFC3339)
		u.Metadata[session.MetaSpotHoldReason], u.Metadata[session.MetaSpotHoldDetail] = d.Reason, d.Detail
		u.Metadata[session.MetaSpotHoldCount] = count
		u.Metadata[session.MetaSpotHoldRetryAt] = at.Format(time.RFC3339)
		return nil
	})
	if err != nil {
		return fmt.Errorf("hold the start of session %d: %w", sessionID, err)
	}
	s.timeline(ctx, sessionID, session.LogInfo, fmt.Sprintf("Held by the spot gate (%s): %s. Asking again at %s (hold %d in a row).",
		d.Reason, d.Detail, at.Format("2006-01-02 15:04:05 UTC"), count))
	_ = s.dispatch(ctx, sessionID, h) // the hold is durable: the sweep queues a retry not queued now
	return nil
}

// clearHold drops the gate's hold record from a session that starts.
func clearHold(u *session.Session) {
	for _, k := range []string{session.MetaSpotHoldAt, session.MetaSpotHoldReason, session.MetaSpotHoldDetail,
		session.MetaSpotHoldCount, session.MetaSpotHoldRetryAt} {
		delete(u.Metadata, k)
	}
}

// SpotSweep says what one ceiling sweep did.
type SpotSweep struct {
	Parked  int
	Resumed int
	Held    map[string]string // runtime → why its parked work waits, for pools the gate keeps closed
}

// SweepSpot is the ceiling sweep: in every pool over a utilization target it parks each running
// spot session, and in every pool over the ceiling as many as it is over, lowest ranked first
// (each finishes its turn, then waits in the spot queue); then it resumes parked sessions into
// pools under both, longest parked first, as many as the agents lane has free slots.
func (s *Service) SweepSpot(ctx context.Context, slots int, scope SweepScope) (SpotSweep, error) {
	st, err := s.spotState(ctx, false)
	if err != nil {
		return SpotSweep{}, err
	}
	out := SpotSweep{Held: map[string]string{}}
	var errs []error
	if st.policy.GatingEnabled {
		for runtime, load := range st.pools {
			excess := 0
			d := st.decide(runtime, 0)
			switch {
			case d.Reason == SpotAtUtilization:
				excess = spotSweepParkPerPool
			case load.Running-load.Leaving > st.policy.MaxConcurrent:
				excess = load.Running - load.Leaving - st.policy.MaxConcurrent
				d.Reason, d.Detail = SpotFleetAtCap, fmt.Sprintf("%d %s sessions were running; the ceiling is %d",
					load.Running-load.Leaving, runtime, st.policy.MaxConcurrent)
			}
			if excess == 0 {
				continue
			}
			n, err := s.parkRunningSpot(ctx, runtime, scope, excess, d)
			out.Parked += n
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	resumed, err := s.resumeSpotParked(ctx, st, slots, scope, out.Held)
	out.Resumed = resumed
	if err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

func (s *Service) parkRunningSpot(ctx context.Context, runtime string, scope SweepScope, n int, d SpotDecision) (int, error) {
	running, err := s.store.SpotRunningSessions(ctx, runtime, scope.Text, n)
	if err != nil {
		return 0, err
	}
	parked := 0
	var errs []error
	for _, sess := range running {
		_, err := s.update(ctx, sess.ID, func(u *session.Session) error {
			if u.Status != session.StatusRunning || session.BagString(u.Metadata, session.MetaSpotQueuedAt) != "" {
				return ErrNotOwner // ended or parked since it was listed
			}
			var park SpotPark
			if err := s.parkForSpot(u, false, &park); err != nil {
				return err
			}
			now := s.now().UTC().Format(time.RFC3339)
			u.Metadata[session.MetaSpotQueuedAt], u.Metadata[session.MetaSpotPauseAt] = now, now
			u.Metadata[session.MetaSpotPauseReason], u.Metadata[session.MetaSpotPauseDetail] = d.Reason, d.Detail
			u.Metadata[session.MetaSpotPauseCount] = session.BagInt(u.Metadata, session.MetaSpotPauseCount) + 1
			return nil
		})
		switch {
		case errors.Is(err, ErrNotOwner):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("park running spot session %d: %w", sess.ID, err))
			continue
		}
		parked++
		s.timeline(ctx, sess.ID, session.LogWarning, fmt.Sprintf(
			"Parked in the spot queue by the ceiling sweep (%s): %s. This turn finishes; the session resumes when the pool has room.", d.Reason, d.Detail))
	}
	return parked, errors.Join(errs...)
}
