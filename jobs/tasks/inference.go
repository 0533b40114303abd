package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// The inference lane's one-shot model calls about a session (jobs/runner runs them through the
// session's summarizer).
const (
	// TypeStatusSummary generates the session's status summary.
	TypeStatusSummary = "session:status_summary"
	// TypeInferTitle replaces the session's placeholder title with one inferred from its prompt.
	TypeInferTitle = "session:infer_title"
)

// Inference is the payload of the inference tasks.
type Inference struct {
	SessionID int64 `json:"session_id"`
}

// inferenceTimeouts bound one call of each kind.
var inferenceTimeouts = map[string]time.Duration{TypeStatusSummary: 90 * time.Second, TypeInferTitle: 30 * time.Second}

// InferenceTaskID is one id per session and kind, so a request made while one is waiting or
// running is absorbed by it.
func InferenceTaskID(typ string, sessionID int64) string {
	return typ + "-" + strconv.FormatInt(sessionID, 10)
}

// NewInferenceTask builds a task of typ (TypeStatusSummary or TypeInferTitle) on the inference
// lane. A failed model call is recorded by the handler, not retried; a store error is.
func NewInferenceTask(typ string, p Inference) (*asynq.Task, error) {
	timeout, ok := inferenceTimeouts[typ]
	if !ok {
		return nil, fmt.Errorf("unknown inference task type %q", typ)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode inference payload: %w", err)
	}
	return asynq.NewTask(typ, b, asynq.Queue(LaneInference), asynq.TaskID(InferenceTaskID(typ, p.SessionID)),
		asynq.MaxRetry(3), asynq.Timeout(timeout)), nil
}

// EnqueueInference queues a typ task for the session; one already waiting or running absorbs it,
// one that finished makes way.
func (q *Queue) EnqueueInference(ctx context.Context, typ string, sessionID int64) error {
	task, err := NewInferenceTask(typ, Inference{SessionID: sessionID})
	if err != nil {
		return err
	}
	_, err = q.client.EnqueueContext(ctx, task)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		err = q.replaceFinished(ctx, task, LaneInference, InferenceTaskID(typ, sessionID))
	}
	if err != nil {
		return fmt.Errorf("queue %s of session %d: %w", typ, sessionID, err)
	}
	return nil
}
