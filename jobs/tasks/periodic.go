package tasks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeSweepOrphans recovers sessions whose worker died and continues sessions parked for
// recovery (the original's CleanupOrphanedSessionsJob).
const TypeSweepOrphans = "sessions:sweep_orphans"

// TypeRetention empties the trash past its window and keeps the data directory within bounds
// (jobs/runner/retention.go).
const TypeRetention = "sessions:retention"

// TypeHeartbeat nudges idle sessions whose heartbeat is due (orchestrator.Heartbeat).
const TypeHeartbeat = "sessions:heartbeat"

// TypeExpireElicitations expires the elicitations nobody answered in time and reports each on
// its session (the original's CleanupExpiredElicitationsJob).
const TypeExpireElicitations = "elicitations:expire"

// TypeTranscriptArchive rebuilds the zip of every transcript (the original's
// TranscriptArchiveJob).
const TypeTranscriptArchive = "transcripts:archive"

// TypeRefreshMCPOAuth renews the MCP servers' OAuth tokens before they expire (the original's
// RefreshMcpOauthTokensJob).
const TypeRefreshMCPOAuth = "mcp:refresh_oauth"

// TypeBacklog is the unattended backlog job: it starts the work backlog's top item whenever
// fewer of the sessions it started than its quota are live.
const TypeBacklog = "backlog:start"

// BacklogEvery is the backlog job's cadence in a deployment.
const BacklogEvery = time.Minute

// Periodic is one job every worker's scheduler enqueues on a fixed cadence.
type Periodic struct {
	Type  string
	Lane  string
	Every time.Duration
}

// minSlotRetention is the least time a tick's id stays taken after the tick ran.
const minSlotRetention = time.Minute

// SlotTaskID is the task id of one tick: the job type and the start of its slot in Unix
// milliseconds (wall-clock time truncated to the cadence). Every worker computes the same id
// for the same tick, so
// however many workers run, Asynq accepts exactly one task per tick and refuses the rest.
// asynq.Scheduler cannot do this: Register fixes a task's id for every tick, and Unique locks
// are released when a task succeeds, so a second scheduler a moment late enqueues again.
func SlotTaskID(typ string, slot time.Time) string {
	return "periodic:" + typ + ":" + strconv.FormatInt(slot.UnixMilli(), 10)
}

// EnqueueSlot enqueues the tick of p that contains at. It reports false when another worker
// already enqueued that tick.
func (q *Queue) EnqueueSlot(ctx context.Context, p Periodic, at time.Time) (bool, error) {
	slot := at.Truncate(p.Every)
	// Retention keeps the id taken after the task completes, for longer than any worker can lag
	// (a loaded machine can hold a scheduler goroutine for a good part of a second, so short
	// cadences get a floor).
	task := asynq.NewTask(p.Type, nil, asynq.Queue(p.Lane), asynq.TaskID(SlotTaskID(p.Type, slot)),
		asynq.MaxRetry(0), asynq.Timeout(p.Every), asynq.Retention(max(2*p.Every, minSlotRetention)))
	_, err := q.client.EnqueueContext(ctx, task)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("enqueue %s tick %s: %w", p.Type, slot.Format(time.RFC3339), err)
	}
	return true, nil
}

// TypeVerifyChains recomputes every session's human-message hash chain.
const TypeVerifyChains = "provenance:verify_chains"
