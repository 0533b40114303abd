package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/trigger"
)

// Firing a trigger, the one chokepoint every condition and an invoke go through:
//
//  1. plan from what the trigger and its reuse target look like now;
//  2. claim the fire's key in the graph and, in the same transaction under the trigger's lock,
//     mark the condition fired and count the burst cap — a key already claimed (a redelivered
//     task, a second poller) fires nothing;
//  3. deliver: follow up the reused session, or spawn one (idempotency key from the fire's key);
//  4. record the session on the trigger; a wake is consumed with its siblings.
//
// A delivery that fails gives the key back: a recurring condition fires on its task's retry, a
// wake is parked failed (re-armable by a toggle).

// FireOutcome says what one fire did.
type FireOutcome string

// Fire outcomes (also the metrics' outcome label).
const (
	FireSpawned     FireOutcome = "spawned"
	FireBurstNotice FireOutcome = "burst_notice"
	FireSuppressed  FireOutcome = "suppressed"
	FireDelivered   FireOutcome = "delivered" // follow-up sent to an idle reused session
	FireQueued      FireOutcome = "queued"    // queued on a running reused session
	FireDropped     FireOutcome = "dropped"   // the reused session was running and the trigger does not queue
	FireSkipped     FireOutcome = "skipped"   // nothing to do: spent, disabled, already fired, not reusable
	FireFailed      FireOutcome = "failed"
)

// FireResult is the outcome of one fire.
type FireResult struct {
	Trigger *trigger.Trigger
	Outcome FireOutcome
	Session *session.Session // the session spawned or followed up, when there is one
	Message string
}

// TriggerObserver counts trigger fires and wakes; metrics implement it (optional on Observer).
type TriggerObserver interface {
	ObserveTriggerFire(conditionType, outcome string)
	ObserveWakeArmed(kind string)
	ObserveWakeFired(kind string)
}

type nopTriggerObserver struct{}

func (nopTriggerObserver) ObserveTriggerFire(string, string) {}
func (nopTriggerObserver) ObserveWakeArmed(string)           {}
func (nopTriggerObserver) ObserveWakeFired(string)           {}

func (s *Service) triggerObserver() TriggerObserver {
	if o, ok := s.obs.(TriggerObserver); ok {
		return o
	}
	return nopTriggerObserver{}
}

// SourceTrigger is the uncle-edge source of a trigger's follow-up (it records no edge: a
// trigger declares no acting session).
const SourceTrigger = "trigger"

type fireRequest struct {
	triggerID   int64
	conditionID int64 // 0: an invoke, which fires whatever the conditions say
	key         string
	vars        map[string]string
	source      int64 // the session whose event fired it (loop prevention); 0 for none
}

// errNotArmed aborts a fire's claim: the condition is spent, the trigger disabled, or the
// schedule is no longer due. Nothing is written.
var errNotArmed = errors.New("not armed")

// reuse routes of a fire.
const (
	routeSpawn       = "spawn"
	routeFollowUp    = "follow_up"
	routeResuscitate = "resuscitate"
)

// InvokeTrigger fires a trigger now, whatever its conditions say and even when disabled (it
// stays disabled); the burst cap still applies. Variables fill the template's placeholders.
func (s *Service) InvokeTrigger(ctx context.Context, id int64, vars map[string]any, roots []string) (FireResult, error) {
	if _, err := s.GetTrigger(ctx, id, roots); err != nil {
		return FireResult{}, err
	}
	return s.fire(ctx, fireRequest{triggerID: id, key: "invoke:" + strconv.FormatInt(id, 10) + ":" + rand.Text(), vars: trigger.KnownVariables(vars)})
}

// FireCondition is the trigger:fire task: one condition's fire under its key.
func (s *Service) FireCondition(ctx context.Context, p tasks.FireTrigger) (FireResult, error) {
	return s.fire(ctx, fireRequest{triggerID: p.TriggerID, conditionID: p.ConditionID, key: p.Key, vars: p.Vars})
}

func (s *Service) fire(ctx context.Context, r fireRequest) (FireResult, error) {
	res, condType, err := s.fireOnce(ctx, r)
	if err != nil {
		res.Outcome = FireFailed
	}
	if condType == "" {
		condType = "manual"
	}
	s.triggerObserver().ObserveTriggerFire(condType, string(res.Outcome))
	return res, err
}

func (s *Service) fireOnce(ctx context.Context, r fireRequest) (FireResult, string, error) {
	t, err := s.store.GetTrigger(ctx, r.triggerID)
	if errors.Is(err, graph.ErrNotFound) {
		return FireResult{Outcome: FireSkipped, Message: "the trigger no longer exists"}, "", nil
	}
	if err != nil {
		return FireResult{}, "", err
	}
	condType := ""
	if c, ok := t.Condition(r.conditionID); ok {
		condType = string(c.Type)
	}
	if r.source != 0 && s.spawnedBy(ctx, r.source, t.ID) {
		return FireResult{Trigger: t, Outcome: FireSkipped, Message: "a trigger never fires on the sessions it spawned"}, condType, nil
	}
	route, target, err := s.reuseRoute(ctx, t)
	if err != nil {
		return FireResult{}, condType, err
	}
	if route == "" {
		msg := "The trigger's session cannot take a fire now (it is paused by hand, archived or gone)."
		return FireResult{Trigger: t, Outcome: FireSkipped, Session: target, Message: msg}, condType, nil
	}
	now := s.now().UTC()
	var (
		decision trigger.SpawnDecision
		wakeOf   int64
	)
	if t.OneTime() {
		wakeOf = *t.LastSessionID
	}
	fired, claim, err := s.store.FireTrigger(ctx, t.ID, r.key, wakeOf, func(u *trigger.Trigger, siblings []*trigger.Trigger) error {
		decision = ""
		for _, w := range siblings {
			if w.Status != trigger.StatusFailed && slices.ContainsFunc(w.Conditions, func(c trigger.Condition) bool { return c.Spent() }) {
				return errNotArmed // a sibling woke the session first: this wake is consumed with it
			}
		}
		var c *trigger.Condition
		if r.conditionID != 0 {
			var ok bool
			if c, ok = u.Condition(r.conditionID); !ok || u.Status != trigger.StatusEnabled || c.Spent() {
				return errNotArmed
			}
			if c.Type == trigger.TypeSchedule && !trigger.Due(*c, u.CreatedAt, now) {
				return errNotArmed
			}
		}
		if route == routeSpawn {
			decision = u.CountSpawn(now)
		}
		if decision != trigger.SpawnSuppressed && c != nil {
			c.LastTriggeredAt = &now // a suppressed fire leaves its schedule due and its one-shot unspent
		}
		u.LastTriggeredAt = &now
		return nil
	})
	if errors.Is(err, errNotArmed) || errors.Is(err, graph.ErrFired) || errors.Is(err, graph.ErrNotFound) {
		return FireResult{Trigger: t, Outcome: FireSkipped, Message: "already fired, spent, disabled or not due"}, condType, nil
	}
	if err != nil {
		return FireResult{}, condType, err
	}
	if decision == trigger.SpawnSuppressed {
		return FireResult{Trigger: fired, Outcome: FireSuppressed, Message: fmt.Sprintf(
			"Burst suppressed: trigger %d fired more than %d times within a minute; its fires are suppressed until %s.",
			fired.ID, capOf(fired), fired.Burst.ActiveUntil.UTC().Format(time.RFC3339))}, condType, nil
	}
	if fired.OneTime() {
		s.consumeSiblings(ctx, fired)
	}
	prompt := trigger.Render(fired.PromptTemplate, r.vars, now)
	res, err := s.deliverFire(ctx, fired, route, target, decision, prompt, r)
	if err != nil {
		s.fireFailed(ctx, fired, claim, r.conditionID, err)
		return FireResult{Trigger: fired}, condType, err
	}
	res.Trigger = s.recordFire(ctx, fired, res)
	return res, condType, nil
}

// spawnedBy: the session was spawned by trigger id (metadata.trigger_id).
func (s *Service) spawnedBy(ctx context.Context, sessionID, triggerID int64) bool {
	src, err := s.store.GetSession(ctx, sessionID)
	return err == nil && int64(session.BagInt(src.Metadata, session.MetaTriggerID)) == triggerID
}

// reuseRoute decides where a fire goes: the reused session (followed up, or unarchived first),
// a new session, or — for a wake whose session cannot take it — nowhere ("").
func (s *Service) reuseRoute(ctx context.Context, t *trigger.Trigger) (string, *session.Session, error) {
	if !t.ReuseSession || t.LastSessionID == nil {
		return routeSpawn, nil, nil
	}
	target, err := s.store.GetSession(ctx, *t.LastSessionID)
	if err != nil && !errors.Is(err, graph.ErrNotFound) {
		return "", nil, err
	}
	switch {
	case target == nil:
	case target.PausedBy() == PausedByUser:
	case target.Status == session.StatusNeedsInput || target.Status == session.StatusRunning || target.Status == session.StatusWaiting:
		return routeFollowUp, target, nil
	case target.Status == session.StatusArchived && t.ResuscitateArchived:
		return routeResuscitate, target, nil
	}
	if t.OneTime() {
		return "", target, nil
	}
	return routeSpawn, nil, nil
}

func (s *Service) deliverFire(ctx context.Context, t *trigger.Trigger, route string, target *session.Session,
	decision trigger.SpawnDecision, prompt string, r fireRequest) (FireResult, error) {
	switch route {
	case routeResuscitate:
		if _, err := s.Unarchive(ctx, target.ID); err != nil {
			return FireResult{}, err
		}
		fallthrough
	case routeFollowUp:
		return s.fireOnto(ctx, t, target.ID, prompt)
	}
	manual := r.conditionID == 0
	if decision == trigger.SpawnNotice {
		sess, err := s.spawnFor(ctx, t, burstNoticePrompt(t, prompt), r.key, manual, true)
		if err != nil {
			return FireResult{}, err
		}
		return FireResult{Outcome: FireBurstNotice, Session: sess, Message: fmt.Sprintf(
			"Trigger %d tipped its burst cap: session #%d was spawned to investigate, and its fires are suppressed for %s.",
			t.ID, sess.ID, trigger.BurstCooldown)}, nil
	}
	sess, err := s.spawnFor(ctx, t, prompt, r.key, manual, false)
	if err != nil {
		return FireResult{}, err
	}
	return FireResult{Outcome: FireSpawned, Session: sess}, nil
}

// fireOnto follows up the reused session. A running one takes the prompt on its queue only
// when the trigger queues (enqueue_messages, or a wake), and never behind a message already
// waiting there.
func (s *Service) fireOnto(ctx context.Context, t *trigger.Trigger, id int64, prompt string) (FireResult, error) {
	cur, err := s.store.GetSession(ctx, id)
	if err != nil {
		return FireResult{}, err
	}
	if cur.Status == session.StatusRunning {
		if !t.EnqueueMessages && !t.OneTime() {
			return FireResult{Outcome: FireDropped, Session: cur, Message: fmt.Sprintf("Session #%d is running and the trigger does not queue; the fire was dropped.", id)}, nil
		}
		if n, err := s.store.CountPendingMessages(ctx, id); err != nil || n > 0 {
			if err != nil {
				return FireResult{}, err
			}
			return FireResult{Outcome: FireSkipped, Session: cur, Message: fmt.Sprintf("Session #%d already has a queued message; the fire was not queued behind it.", id)}, nil
		}
	}
	out, err := s.FollowUp(ctx, id, FollowUpParams{Prompt: prompt, Source: SourceTrigger})
	if err != nil {
		return FireResult{}, err
	}
	if out.Outcome == FollowUpQueued {
		return FireResult{Outcome: FireQueued, Session: out.Session}, nil
	}
	return FireResult{Outcome: FireDelivered, Session: out.Session}, nil
}

// spawnFor creates the trigger's session; the fire's key makes the create idempotent, so a
// retried delivery returns the session the first attempt made.
func (s *Service) spawnFor(ctx context.Context, t *trigger.Trigger, prompt, key string, manual, notice bool) (*session.Session, error) {
	idem := "trigger-" + key
	root := t.AgentRootName
	p := CreateParams{AgentRoot: &root, Prompt: &prompt, Precedence: t.Precedence, IdempotencyKey: &idem,
		ExplicitGenesis: t.Genesis(),
		metadata:        map[string]any{session.MetaTriggerID: t.ID, session.MetaTriggerName: t.Name}}
	if manual {
		p.ExplicitGenesis = session.GenesisAPI
	} else {
		p.SchedulingClass = t.SchedulingClass
	}
	if notice {
		p.metadata[session.MetaBurstNotice] = true
	} else {
		p.Goal = t.Goal
	}
	for _, l := range []struct {
		list []string
		into **[]string
	}{{t.MCPServers, &p.MCPServers}, {t.CatalogSkills, &p.CatalogSkills}, {t.CatalogHooks, &p.CatalogHooks}, {t.CatalogPlugins, &p.CatalogPlugins}} {
		if len(l.list) > 0 { // an empty list says nothing: the root's defaults
			list := l.list
			*l.into = &list
		}
	}
	created, err := s.Create(ctx, p)
	if err != nil {
		return nil, err
	}
	return created.Session, nil
}

// maxBurstExcerpt bounds the tipping fire's prompt quoted in a burst notice.
const maxBurstExcerpt = 500

func burstNoticePrompt(t *trigger.Trigger, tipping string) string {
	ids := make([]string, len(t.Burst.SessionIDs))
	for i, id := range t.Burst.SessionIDs {
		ids[i] = "#" + strconv.FormatInt(id, 10)
	}
	if r := []rune(tipping); len(r) > maxBurstExcerpt {
		tipping = string(r[:maxBurstExcerpt]) + "…"
	}
	return fmt.Sprintf("Trigger #%d (%q) fired more than %d times within a minute, so Zimmer suppresses its fires for the next %s.\n"+
		"Sessions it spawned this window: %s.\nThe fire that tipped it asked for:\n%s\n\n"+
		"Investigate why it fires so often (a loop, a noisy channel, a label storm) and fix or disable the trigger.",
		t.ID, t.Name, capOf(t), trigger.BurstCooldown, listOrNothing(ids), quote(tipping))
}

func capOf(t *trigger.Trigger) int64 {
	if t.MaxSessionsPerMinute == nil {
		return 0
	}
	return *t.MaxSessionsPerMinute
}

func listOrNothing(ids []string) string {
	if len(ids) == 0 {
		return "(none)"
	}
	return strings.Join(ids, ", ")
}

func quote(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n")
}

// recordFire stores what the fire produced: the session counter, the burst window's spawns,
// the reuse target; a wake that delivered is consumed.
func (s *Service) recordFire(ctx context.Context, t *trigger.Trigger, res FireResult) *trigger.Trigger {
	if t.OneTime() && (res.Outcome == FireDelivered || res.Outcome == FireQueued) {
		if _, err := s.store.DeleteTriggers(ctx, []int64{t.ID}); err != nil {
			s.log.Warn("wake fired but was not deleted", "trigger_id", t.ID, "err", err)
		}
		s.triggerObserver().ObserveWakeFired(wakeKind(t))
		return t
	}
	created := res.Outcome == FireSpawned || res.Outcome == FireBurstNotice
	if !created {
		return t
	}
	updated, err := s.store.UpdateTrigger(ctx, t.ID, func(u *trigger.Trigger) error {
		u.SessionsCreatedCount++
		if res.Outcome == FireSpawned {
			u.RecordSpawn(res.Session.ID)
			if u.ReuseSession {
				id := res.Session.ID
				u.LastSessionID = &id
			}
		}
		return nil
	})
	if err != nil {
		s.log.Warn("trigger fired but its counters were not recorded", "trigger_id", t.ID, "err", err)
		return t
	}
	return updated
}

// consumeSiblings deletes the other wakes of the same session before a wake delivers: the
// session is woken once, and must not rest asleep on a wake about to be consumed. A failed
// wake stays for a human to re-arm or delete.
func (s *Service) consumeSiblings(ctx context.Context, t *trigger.Trigger) {
	wakes, err := s.store.WakesOfSession(ctx, *t.LastSessionID)
	if err != nil {
		s.log.Warn("a wake fired but its siblings were not read", "trigger_id", t.ID, "err", err)
		return
	}
	var ids []int64
	for _, w := range wakes {
		if w.ID != t.ID && w.Status != trigger.StatusFailed {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	if _, err := s.store.DeleteTriggers(ctx, ids); err != nil {
		s.log.Warn("a wake fired but its siblings were not deleted", "trigger_id", t.ID, "siblings", ids, "err", err)
	}
}

// maxLastError bounds a parked trigger's last_error.
const maxLastError = 1000

// fireFailed gives the fire's key back; a wake is parked failed with its condition unspent (so
// re-arming it fires for real), a recurring condition keeps its advance and retries with the task.
func (s *Service) fireFailed(ctx context.Context, t *trigger.Trigger, claim graph.FireClaim, conditionID int64, cause error) {
	s.log.Warn("trigger fire failed", "trigger_id", t.ID, "condition_id", conditionID, "err", cause)
	if err := s.store.ReleaseTriggerFire(ctx, claim); err != nil {
		s.log.Warn("a failed fire's key was not released", "trigger_id", t.ID, "err", err)
	}
	if !t.OneTime() {
		return
	}
	now := s.now().UTC()
	msg := cause.Error()
	if r := []rune(msg); len(r) > maxLastError {
		msg = string(r[:maxLastError])
	}
	_, err := s.store.UpdateTrigger(ctx, t.ID, func(u *trigger.Trigger) error {
		if c, ok := u.Condition(conditionID); ok {
			c.LastTriggeredAt = nil
		}
		u.Status, u.FailedAt, u.LastError = trigger.StatusFailed, &now, msg
		return nil
	})
	if err != nil && !errors.Is(err, graph.ErrNotFound) {
		s.log.Warn("a failed wake was not parked", "trigger_id", t.ID, "err", err)
	}
}

// SweepSchedules queues a fire for every due schedule condition; the key names the due instance
// (the condition and when it last fired), so two sweeps of the same instance queue one fire.
// A scope with Text looks only at triggers whose prompt template mentions it (for graphs shared
// by independent workers: the tests).
func (s *Service) SweepSchedules(ctx context.Context, scope SweepScope) (int, error) {
	list, err := s.store.EnabledTriggersOfType(ctx, trigger.TypeSchedule)
	if err != nil {
		return 0, err
	}
	now := s.now().UTC()
	queued := 0
	var errs []error
	for _, t := range list {
		if scope.Text != "" && !strings.Contains(t.PromptTemplate, scope.Text) {
			continue
		}
		for _, c := range t.Conditions {
			if c.Type != trigger.TypeSchedule || !trigger.Due(c, t.CreatedAt, now) {
				continue
			}
			last := int64(0)
			if c.LastTriggeredAt != nil {
				last = c.LastTriggeredAt.UnixMilli()
			}
			key := fmt.Sprintf("schedule:%d:%d", c.ID, last)
			if err := s.queue.EnqueueFireTrigger(ctx, tasks.FireTrigger{TriggerID: t.ID, ConditionID: c.ID, Key: key}); err != nil {
				errs = append(errs, err)
				continue
			}
			queued++
		}
	}
	return queued, errors.Join(errs...)
}
