// Package tasks is the queue below the orchestrator: Zimmer's Asynq task types with typed
// payloads and deterministic ids, the lanes, the queue client the API enqueues through, run
// leases and periodic slots. The worker that serves the lanes (package jobs) and the runner
// sit above the orchestrator.
package tasks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// Lanes are the Asynq queues, each served with its own concurrency so one kind of work cannot
// starve another.
const (
	LaneAgents      = "agents"
	LaneTriggers    = "triggers"
	LanePollers     = "pollers"
	LaneInference   = "inference"
	LaneMaintenance = "maintenance"
	LaneDefault     = "default"
)

// LaneConcurrency is each lane's worker count in one `zimmer worker` process.
var LaneConcurrency = map[string]int{
	LaneAgents: 20, LaneTriggers: 5, LanePollers: 3, LaneInference: 4, LaneMaintenance: 2, LaneDefault: 5,
}

// Lanes lists every lane, sorted.
func Lanes() []string { return slices.Sorted(maps.Keys(LaneConcurrency)) }

// TypeRunSession runs one agent turn of a session.
const TypeRunSession = "session:run"

// RunSession is the payload of TypeRunSession.
type RunSession struct {
	SessionID int64  `json:"session_id"`
	Prompt    string `json:"prompt"`
	Reason    string `json:"reason"` // start, follow_up, drain, recovery
}

// RunSessionTaskID is the deterministic id of a session's first run, so a replayed enqueue of
// the same start is refused by Asynq instead of running the agent twice.
func RunSessionTaskID(sessionID int64, reason string) string {
	return "session-" + strconv.FormatInt(sessionID, 10) + "-" + reason
}

// MaxTurn bounds one agent turn. Asynq gives every task a deadline (30 minutes unless told
// otherwise), and a turn routinely runs longer; one that reaches this bound is handed back for
// recovery like a turn whose worker stops.
const MaxTurn = 24 * time.Hour

// NewRunSessionTask builds the task; agent runs are never retried automatically (recovery is
// explicit) and run for up to MaxTurn.
func NewRunSessionTask(p RunSession, taskID string) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode run-session payload: %w", err)
	}
	return asynq.NewTask(TypeRunSession, b, asynq.Queue(LaneAgents), asynq.TaskID(taskID), asynq.MaxRetry(0),
		asynq.Timeout(MaxTurn)), nil
}

// TypeDrainMessages delivers the next queued message of a session that rests in needs_input
// (the original's EnqueuedMessageDrainJob); the runner handles it (jobs/runner).
const TypeDrainMessages = "session:drain"

// DrainMessages is the payload of TypeDrainMessages.
type DrainMessages struct {
	SessionID int64 `json:"session_id"`
}

// DrainDelay is how long a drain waits, so a caller that queues several messages in a row
// (or a turn that is just ending) settles before the first is delivered.
const DrainDelay = 10 * time.Second

// DrainMessagesTaskID is one id per session, so a drain already scheduled absorbs the next
// request instead of queuing a second one.
func DrainMessagesTaskID(sessionID int64) string {
	return "session-" + strconv.FormatInt(sessionID, 10) + "-drain"
}

// NewDrainMessagesTask builds a drain of the session's queue, due in DrainDelay.
func NewDrainMessagesTask(p DrainMessages) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode drain payload: %w", err)
	}
	return asynq.NewTask(TypeDrainMessages, b, asynq.Queue(LaneDefault), asynq.TaskID(DrainMessagesTaskID(p.SessionID)),
		asynq.ProcessIn(DrainDelay)), nil
}

// TypeSessionEffects runs the after-commit effects of one committed lifecycle transition (see
// orchestrator/effects.go).
const TypeSessionEffects = "session:effects"

// SessionEffects is the payload of TypeSessionEffects: the session and the transition's batch.
type SessionEffects struct {
	SessionID int64  `json:"session_id"`
	Batch     string `json:"batch"`
}

// SessionEffectsTaskID is one id per transition, so a retried transaction or a second enqueue of
// the same batch is refused by Asynq instead of running its effects twice.
func SessionEffectsTaskID(batch string) string { return "effects-" + batch }

// effectsRetries bounds Asynq's retries of one batch (exponential back-off, hours in all); a
// batch that exhausts them stays recorded and the sweep queues it again.
const effectsRetries = 10

// NewSessionEffectsTask builds the task on the default lane.
func NewSessionEffectsTask(p SessionEffects) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode session-effects payload: %w", err)
	}
	return asynq.NewTask(TypeSessionEffects, b, asynq.Queue(LaneDefault), asynq.TaskID(SessionEffectsTaskID(p.Batch)),
		asynq.MaxRetry(effectsRetries)), nil
}
