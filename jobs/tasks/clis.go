package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeRefreshCLIs probes every agent CLI (version and login state) into the CLI status cache;
// it runs on a tick and whenever someone asks for a refresh.
const TypeRefreshCLIs = "clis:refresh"

// CLIsRefreshEvery is the tick's cadence; a record older than twice it is reported stale.
const CLIsRefreshEvery = 10 * time.Minute

// cliStatusKey is the Redis hash of the cache: runtime → CLIStatus JSON. Redis rather than the
// graph because, like the cooldown and the recovery halt, it is disposable operational state.
const cliStatusKey = "zimmer:cli-status"

// CLIStatus is one runtime's last probe. It never holds a credential: only whether the CLI's
// own login check passed.
type CLIStatus struct {
	Runtime   string `json:"runtime"`
	Binary    string `json:"binary"`
	Installed bool   `json:"installed"`
	Version   string `json:"version"`
	// Authenticated is nil when the CLI has no login check to ask.
	Authenticated *bool      `json:"authenticated"`
	Error         string     `json:"error,omitempty"`
	CheckedAt     *time.Time `json:"checked_at"` // nil only in a report's entry for a runtime never probed
}

// EnqueueCLIRefresh queues a probe of every agent CLI on the pollers lane.
func (q *Queue) EnqueueCLIRefresh(ctx context.Context) error {
	task := asynq.NewTask(TypeRefreshCLIs, nil, asynq.Queue(LanePollers), asynq.MaxRetry(0),
		asynq.Timeout(2*time.Minute), asynq.Retention(time.Hour))
	if _, err := q.client.EnqueueContext(ctx, task); err != nil {
		return fmt.Errorf("queue the CLI status refresh: %w", err)
	}
	return nil
}

// SaveCLIStatus replaces one runtime's record.
func (q *Queue) SaveCLIStatus(ctx context.Context, s CLIStatus) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode the %s CLI status: %w", s.Runtime, err)
	}
	if err := q.redis.HSet(ctx, cliStatusKey, s.Runtime, b).Err(); err != nil {
		return fmt.Errorf("store the %s CLI status: %w", s.Runtime, err)
	}
	return nil
}

// CLIStatuses reads the cache by runtime; a runtime never probed is absent.
func (q *Queue) CLIStatuses(ctx context.Context) (map[string]CLIStatus, error) {
	raw, err := q.redis.HGetAll(ctx, cliStatusKey).Result()
	if err != nil {
		return nil, fmt.Errorf("read the CLI status cache: %w", err)
	}
	out := make(map[string]CLIStatus, len(raw))
	for runtime, v := range raw {
		var s CLIStatus
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return nil, fmt.Errorf("decode the %s CLI status: %w", runtime, err)
		}
		out[runtime] = s
	}
	return out, nil
}

// ClearCLIStatuses empties the cache.
func (q *Queue) ClearCLIStatuses(ctx context.Context) error {
	if err := q.redis.Del(ctx, cliStatusKey).Err(); err != nil {
		return fmt.Errorf("clear the CLI status cache: %w", err)
	}
	return nil
}
