package tasks

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The health actions' cooldown: one run per action per caller every period, shared by every
// surface because it lives in Redis, keyed by a digest of the caller's API key (never the key).
const cooldownPrefix = "zimmer:health-cooldown:"

// ErrCooldownUnavailable means Redis cannot enforce the cooldown; the action must not run.
var ErrCooldownUnavailable = errors.New("rate limiting unavailable")

// TakeCooldown records a run of action by caller unless one was recorded within period, in one
// atomic step (SET NX with the period's expiry, a second over it). When one was, ok is false
// and left is how long until the next may run.
func (q *Queue) TakeCooldown(ctx context.Context, action, caller string, period time.Duration) (ok bool, left time.Duration, err error) {
	key := cooldownPrefix + action + ":" + caller
	set, err := q.redis.SetNX(ctx, key, time.Now().UTC().Format(time.RFC3339), period+time.Second).Result()
	if err != nil {
		return false, 0, fmt.Errorf("%w: %v", ErrCooldownUnavailable, err)
	}
	if set {
		return true, 0, nil
	}
	ttl, err := q.redis.PTTL(ctx, key).Result()
	if err != nil {
		return false, 0, fmt.Errorf("%w: %v", ErrCooldownUnavailable, err)
	}
	return false, min(max(ttl-time.Second, time.Second), period), nil
}

// ReleaseCooldown forgets a run that failed, so it does not hold the next one back.
func (q *Queue) ReleaseCooldown(ctx context.Context, action, caller string) error {
	if err := q.redis.Del(ctx, cooldownPrefix+action+":"+caller).Err(); err != nil {
		return fmt.Errorf("release the %s cooldown: %w", action, err)
	}
	return nil
}
