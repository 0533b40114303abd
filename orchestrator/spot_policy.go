package orchestrator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/zimmerhq/zimmer/catalog"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

// SpotPolicy reads the spot gate's policy and the genesis class overrides.
func (s *Service) SpotPolicy(ctx context.Context) (settings.Spot, error) {
	return s.store.SpotPolicy(ctx)
}

// UpdateSpotPolicy changes the policy; an invalid change writes nothing and is a
// ValidationError labelled "Invalid spot policy" naming every problem.
func (s *Service) UpdateSpotPolicy(ctx context.Context, c settings.SpotChange) (settings.Spot, error) {
	p, err := s.store.UpdateSpotPolicy(ctx, c)
	if pe := (*graph.SpotPolicyError)(nil); errors.As(err, &pe) {
		return settings.Spot{}, invalid("Invalid spot policy", pe.Messages...)
	}
	return p, err
}

// SetGenesisClass sets the class sessions of a settable genesis derive (every deriving session,
// existing ones included, moves with it); the default class removes the override.
func (s *Service) SetGenesisClass(ctx context.Context, g session.Genesis, c session.Class) (settings.Spot, error) {
	switch {
	case !g.Valid():
		return settings.Spot{}, invalid("Invalid spot policy", fmt.Sprintf("Unknown genesis: %s. Settable: web_ui, api, unknown", g))
	case !g.Settable():
		return settings.Spot{}, invalid("Invalid spot policy", fmt.Sprintf(
			"`%s` takes its class from the trigger that fires it, not from this policy. Set scheduling_class on the trigger instead", g))
	}
	cur, err := s.store.SpotPolicy(ctx)
	if err != nil {
		return settings.Spot{}, err
	}
	next := session.ClassOverrides{}
	for k, v := range cur.GenesisClasses {
		next[k] = v
	}
	if c == g.DefaultClass() {
		delete(next, g)
	} else {
		next[g] = c
	}
	return s.UpdateSpotPolicy(ctx, settings.SpotChange{GenesisClasses: next})
}

// ResetGenesisClasses returns every genesis kind to its default class.
func (s *Service) ResetGenesisClasses(ctx context.Context) (settings.Spot, error) {
	return s.UpdateSpotPolicy(ctx, settings.SpotChange{GenesisClasses: session.ClassOverrides{}})
}

// SpotQueue is one page of the ranked spot queue (parked and held sessions, highest precedence
// first) and its length: the whole fleet's, since it is only read.
func (s *Service) SpotQueue(ctx context.Context, page, perPage int) ([]*session.Session, Page, error) {
	page, perPage = pageBounds(page, perPage)
	list, total, err := s.store.SpotQueue(ctx, "", (page-1)*perPage, perPage)
	if err != nil {
		return nil, Page{}, err
	}
	return list, newPage(page, perPage, total), nil
}

// SpotCensus counts the sessions the gate holds, by reason, and the ones parked in the queue.
func (s *Service) SpotCensus(ctx context.Context) (map[string]int, int, error) {
	return s.store.SpotCensus(ctx)
}

// SpotPool is the gate's current answer for one runtime's account pool.
type SpotPool struct {
	Runtime  string
	Decision SpotDecision
	Leaving  int // running sessions parked to leave at the end of their turn
}

// SpotReport is the spot gate as it stands: the policy, each pool's decision and why, and the
// head of the ranked queue.
type SpotReport struct {
	Policy     settings.Spot
	Pools      []SpotPool
	Queue      []*session.Session
	QueueTotal int
}

// SpotReport reads the gate's state, with up to queueHead sessions of the ranked queue.
func (s *Service) SpotReport(ctx context.Context, queueHead int) (SpotReport, error) {
	st, err := s.spotState(ctx, true)
	if err != nil {
		return SpotReport{}, err
	}
	out := SpotReport{Policy: st.policy}
	for _, runtime := range catalog.RuntimeKeys {
		out.Pools = append(out.Pools, SpotPool{Runtime: runtime, Decision: st.decide(runtime, 0), Leaving: st.pools[runtime].Leaving})
	}
	queue, page, err := s.SpotQueue(ctx, 1, queueHead)
	if err != nil {
		return SpotReport{}, err
	}
	out.Queue, out.QueueTotal = queue, page.TotalCount
	return out, nil
}

// StartNow resumes a session waiting in the spot queue at once, whatever the gate says: one
// parked there resumes as the scheduler would resume it; one held at its first start starts now.
// It refuses a session asleep on a wall-clock wake, whose wake outranks the queue.
func (s *Service) StartNow(ctx context.Context, id int64) (*session.Session, error) {
	wakes, err := s.ArmedWakes(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, w := range wakes {
		if wakeKind(w) == WakeAtTime {
			return nil, invalid("Cannot start now", fmt.Sprintf("Session #%d is asleep on a wall-clock wake (%s), which outranks the spot queue. "+
				"Cancel the wake at /triggers to take it over, or send a follow-up (the wake stays armed).", id, WakeLine(w)))
		}
	}
	sess, err := s.store.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case spotParked(sess):
		ok, err := s.resumeSpot(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalid("Cannot start now", fmt.Sprintf("Session #%d has nothing to run: no queued message, prompt or conversation to resume", id))
		}
	case session.BagString(sess.Metadata, session.MetaSpotHoldReason) != "" && sess.Status == session.StatusWaiting:
		if err := s.startHeld(ctx, id); err != nil {
			return nil, err
		}
	default:
		return nil, invalid("Cannot start now", fmt.Sprintf("Session #%d is not waiting in the spot queue (it is %s)", id, sess.Status))
	}
	s.timeline(ctx, id, session.LogInfo, "Started now from the ranked queue, ahead of the spot gate")
	return s.store.GetSession(ctx, id)
}

// startHeld moves a held first start to a task due now that the gate lets through.
func (s *Service) startHeld(ctx context.Context, id int64) error {
	token := rand.Text() // drawn outside the retried transaction, so the task id is stable
	var h *handOff
	_, err := s.update(ctx, id, func(u *session.Session) error {
		h = nil
		p, ok := pendingOf(u)
		if !ok || u.Status != session.StatusWaiting || u.RunningJobID != nil {
			return invalid("Cannot start now", fmt.Sprintf("Session #%d is no longer held by the spot gate", id))
		}
		h = &handOff{taskID: tasks.RunSessionTaskID(u.ID, "start-now-"+token), prompt: p.Prompt, reason: startNowReason}
		p.TaskID, p.Reason, p.Attempts, p.DueAt = h.taskID, startNowReason, 0, ""
		u.Metadata[session.MetaPendingDispatch] = p.bag()
		u.JobID = &h.taskID
		clearHold(u)
		return nil
	})
	if err != nil {
		return err
	}
	return s.dispatch(ctx, id, h)
}

// startNowReason is the run reason of a first start a human let past the gate.
const startNowReason = "start_now"

// DemoteToSpot makes a session spot and slots it at the head of the spot queue (the Ranked
// view's "Demote to spot"): scheduling_class spot, precedence top_of_spot.
func (s *Service) DemoteToSpot(ctx context.Context, id int64) (*session.Session, error) {
	top, err := s.store.MaxSpotPrecedence(ctx)
	if err != nil {
		return nil, err
	}
	spot := session.ClassSpot
	sess, err := s.update(ctx, id, func(u *session.Session) error {
		if u.Status == session.StatusArchived {
			return invalid("Cannot demote", fmt.Sprintf("Session #%d is archived", id))
		}
		atHead := u.PriorityClass() == session.ClassSpot && u.Precedence >= top
		u.SchedulingClass = &spot
		if !atHead {
			u.Precedence = clamp(top+topOfSpotMargin, -session.MaxPrecedence, session.MaxPrecedence)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.logChange(ctx, id, fmt.Sprintf("Demoted to spot at the head of the spot queue (precedence %d)", sess.Precedence))
	return sess, nil
}
