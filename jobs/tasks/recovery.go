package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// Queue recovery mode halts every lane but agents (Asynq's own queue pause: enqueues and
// periodic ticks go on, execution stops) so an operator can fix a runaway queue while sessions
// keep running. Its record lives in Redis with a TTL at its expiry, so it reads as off the moment
// it lapses even if nobody is looking; a marker without a TTL says the lanes were paused, and the
// periodic check on the agents lane (which the halt never reaches) resumes them once the record
// has lapsed, whichever worker set it and whether or not that worker still runs.
const (
	recoveryKey    = "zimmer:queue-recovery-mode"
	recoveryMarker = "zimmer:queue-recovery-mode:halted"
)

// ErrRecoveryUnavailable means Redis could not record or apply the halt.
var ErrRecoveryUnavailable = errors.New("queue recovery mode unavailable")

// HaltedLanes are the lanes recovery mode pauses, sorted; agents stays live.
func HaltedLanes() []string {
	return slices.DeleteFunc(Lanes(), func(l string) bool { return l == LaneAgents })
}

// RecoveryMode is the record of a halt.
type RecoveryMode struct {
	EnteredAt time.Time `json:"entered_at"`
	ExpiresAt time.Time `json:"expires_at"`
	Reason    string    `json:"reason"`
	EnteredBy string    `json:"entered_by"`
}

// RecoveryStatus is recovery mode as it stands: Mode is nil when it is off (an elapsed record
// reads as off), Paused is what Asynq actually has paused, by the halt or by hand.
type RecoveryStatus struct {
	Mode   *RecoveryMode
	Paused []string
}

// Active reports whether a halt is in force.
func (s RecoveryStatus) Active() bool { return s.Mode != nil }

// Recovery reads the status at now.
func (q *Queue) Recovery(ctx context.Context, now time.Time) (RecoveryStatus, error) {
	var st RecoveryStatus
	raw, err := q.redis.Get(ctx, recoveryKey).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return st, fmt.Errorf("%w: read its record: %v", ErrRecoveryUnavailable, err)
	default:
		var m RecoveryMode
		if err := json.Unmarshal(raw, &m); err != nil {
			return st, fmt.Errorf("decode the queue recovery record: %w", err)
		}
		if now.Before(m.ExpiresAt) {
			st.Mode = &m
		}
	}
	paused, err := q.lanesPaused(ctx)
	st.Paused = paused
	return st, err
}

// lanesPaused lists the lanes Asynq has paused, known to it or not yet.
func (q *Queue) lanesPaused(ctx context.Context) ([]string, error) {
	var out []string
	for _, lane := range Lanes() {
		n, err := q.redis.Exists(ctx, pausedKey(lane)).Result()
		if err != nil {
			return nil, fmt.Errorf("%w: read the pause of %s: %v", ErrRecoveryUnavailable, lane, err)
		}
		if n > 0 {
			out = append(out, lane)
		}
	}
	return out, nil
}

// pausedKey is where Asynq keeps a queue's pause. The halt writes it directly: the Inspector
// reads a pause only on a queue that has held a task, and a halt must hold a lane that has none
// yet. The recovery tests prove a lane server honours it.
func pausedKey(lane string) string { return "asynq:{" + lane + "}:paused" }

// EnterRecovery halts the lanes until now+ttl. Entering while a halt is in force extends it:
// the first entry's time stays, and its reason and author unless new ones are given. The record
// is written before any lane pauses, so a halt nothing records cannot happen.
func (q *Queue) EnterRecovery(ctx context.Context, now time.Time, ttl time.Duration, reason, by string) (RecoveryStatus, error) {
	prev, err := q.Recovery(ctx, now)
	if err != nil {
		return prev, err
	}
	m := RecoveryMode{EnteredAt: now.UTC(), ExpiresAt: now.Add(ttl).UTC(), Reason: reason, EnteredBy: by}
	if prev.Mode != nil {
		m.EnteredAt = prev.Mode.EnteredAt
		m.Reason = orKeep(reason, prev.Mode.Reason)
		m.EnteredBy = orKeep(by, prev.Mode.EnteredBy)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return prev, fmt.Errorf("encode the queue recovery record: %w", err)
	}
	_, err = q.redis.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, recoveryKey, raw, 0)
		p.PExpireAt(ctx, recoveryKey, m.ExpiresAt)
		p.Set(ctx, recoveryMarker, m.EnteredAt.Format(time.RFC3339), 0)
		return nil
	})
	if err != nil {
		return prev, fmt.Errorf("%w: record it: %v", ErrRecoveryUnavailable, err)
	}
	for _, lane := range HaltedLanes() {
		if err := q.redis.SetNX(ctx, pausedKey(lane), now.Unix(), 0).Err(); err != nil {
			return prev, fmt.Errorf("%w: pause %s: %v", ErrRecoveryUnavailable, lane, err)
		}
	}
	return q.Recovery(ctx, now)
}

func orKeep(given, kept string) string {
	if given != "" {
		return given
	}
	return kept
}

// ExitRecovery resumes the halted lanes and drops the record; it reports whether a halt was in
// force. If a lane cannot be resumed the record stays, so the periodic check tries again.
func (q *Queue) ExitRecovery(ctx context.Context, now time.Time) (RecoveryStatus, bool, error) {
	prev, err := q.Recovery(ctx, now)
	if err != nil {
		return prev, false, err
	}
	if err := q.resumeHalted(ctx); err != nil {
		return prev, prev.Active(), err
	}
	st, err := q.Recovery(ctx, now)
	return st, prev.Active(), err
}

func (q *Queue) resumeHalted(ctx context.Context) error {
	keys := []string{}
	for _, lane := range HaltedLanes() {
		keys = append(keys, pausedKey(lane))
	}
	// Pauses first, record last: a failure in between leaves a record the check lifts again.
	if err := q.redis.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("%w: resume %v: %v", ErrRecoveryUnavailable, HaltedLanes(), err)
	}
	if err := q.redis.Del(ctx, recoveryKey, recoveryMarker).Err(); err != nil {
		return fmt.Errorf("%w: drop its record: %v", ErrRecoveryUnavailable, err)
	}
	return nil
}

// LiftExpiredRecovery resumes the lanes of a halt whose time has run out (its record lapsed, or
// says it has expired) and reports whether it did. A halt in force, or none, is left alone, as
// are lanes paused by hand.
func (q *Queue) LiftExpiredRecovery(ctx context.Context, now time.Time) (bool, error) {
	n, err := q.redis.Exists(ctx, recoveryMarker).Result()
	if err != nil || n == 0 {
		return false, err
	}
	st, err := q.Recovery(ctx, now)
	if err != nil || st.Active() {
		return false, err
	}
	return true, q.resumeHalted(ctx)
}

// TypeQueueRecoveryCheck lifts a queue recovery halt whose time has run out. It runs every minute
// on the agents lane, the one lane the halt leaves running.
const TypeQueueRecoveryCheck = "queue:recovery_check"
