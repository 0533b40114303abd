package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// Trigger tasks, all on the triggers lane except the GitHub poll (pollers).
const (
	// TypeFireTrigger fires one trigger condition (a due schedule, an invoke, a poll's find).
	TypeFireTrigger = "trigger:fire"
	// TypeSessionEvent fires the ao_event conditions a session's transition reaches.
	TypeSessionEvent = "trigger:session_event"
	// TypeScheduleTriggers is the periodic sweep that queues a fire for every due schedule.
	TypeScheduleTriggers = "triggers:schedule"
	// TypePollGitHub is the periodic poll of the GitHub conditions.
	TypePollGitHub = "triggers:poll_github"
)

// FireTrigger is the payload of TypeFireTrigger. Key names the fire: the same key never fires
// twice (the graph keeps a mark per key).
type FireTrigger struct {
	TriggerID   int64             `json:"trigger_id"`
	ConditionID int64             `json:"condition_id"`
	Key         string            `json:"key"`
	Vars        map[string]string `json:"vars,omitempty"`
}

// SessionEvent is the payload of TypeSessionEvent: what happened to which session, and the
// transition it happened in.
type SessionEvent struct {
	SessionID int64  `json:"session_id"`
	Event     string `json:"event"`
	Batch     string `json:"batch"`
}

// triggerRetries bounds the retries of a fire whose delivery failed for a passing reason.
const triggerRetries = 5

// EnqueueFireTrigger queues one fire; a fire with the same key already queued absorbs it.
func (q *Queue) EnqueueFireTrigger(ctx context.Context, p FireTrigger) error {
	return q.enqueueTrigger(ctx, TypeFireTrigger, p, "trigger-fire:"+p.Key, 0)
}

// EnqueueSessionEvent queues the ao_event fires of one transition after delay (a needs_input
// waits for the session to settle); the transition's id makes a second enqueue a no-op.
func (q *Queue) EnqueueSessionEvent(ctx context.Context, p SessionEvent, delay time.Duration) error {
	return q.enqueueTrigger(ctx, TypeSessionEvent, p, "session-event:"+p.Batch+":"+p.Event, delay)
}

func (q *Queue) enqueueTrigger(ctx context.Context, typ string, payload any, id string, delay time.Duration) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("encode %s payload: %w", typ, err)
	}
	task := asynq.NewTask(typ, b, asynq.Queue(LaneTriggers), asynq.TaskID(id), asynq.MaxRetry(triggerRetries),
		asynq.ProcessIn(delay), asynq.Retention(time.Hour))
	_, err = q.client.EnqueueContext(ctx, task)
	if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("queue %s %s: %w", typ, id, err)
	}
	return nil
}
