package tasks

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/zimmerhq/zimmer/config"
)

// Queue enqueues and inspects tasks. It is safe for concurrent use.
type Queue struct {
	client    *asynq.Client
	inspector *asynq.Inspector
	redis     redis.UniversalClient
	conn      asynq.RedisConnOpt
}

// ErrDuplicate means a task with the same id is already queued or running.
var ErrDuplicate = errors.New("task already queued")

// OpenQueue connects to the Redis at url (redis://host:port/db).
func OpenQueue(url string) (*Queue, error) {
	conn, err := asynq.ParseRedisURI(url)
	if err != nil {
		// A parse error quotes the whole URL, password included: keep only its reason.
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("REDIS_URL %q: %w", config.RedactURL(url), err)
	}
	rc, ok := conn.MakeRedisClient().(redis.UniversalClient)
	if !ok {
		return nil, fmt.Errorf("REDIS_URL %q: unsupported connection kind", config.RedactURL(url))
	}
	return &Queue{client: asynq.NewClient(conn), inspector: asynq.NewInspector(conn), redis: rc, conn: conn}, nil
}

// Conn is the Redis connection the queue was opened on, for the worker's lane servers.
func (q *Queue) Conn() asynq.RedisConnOpt { return q.conn }

// Close releases the connections.
func (q *Queue) Close() error {
	return errors.Join(q.client.Close(), q.inspector.Close(), q.redis.Close())
}

// Ping proves Redis answers.
func (q *Queue) Ping(ctx context.Context) error {
	if err := q.redis.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis ping: %w", err)
	}
	return nil
}

// EnqueueRunSession queues one agent turn and returns the task id.
func (q *Queue) EnqueueRunSession(ctx context.Context, p RunSession, taskID string) (string, error) {
	task, err := NewRunSessionTask(p, taskID)
	if err != nil {
		return "", err
	}
	info, err := q.client.EnqueueContext(ctx, task)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return taskID, fmt.Errorf("enqueue run of session %d: %w", p.SessionID, ErrDuplicate)
	}
	if err != nil {
		return "", fmt.Errorf("enqueue run of session %d: %w", p.SessionID, err)
	}
	return info.ID, nil
}

// EnqueueDrainMessages schedules a drain of the session's queue in DrainDelay; a drain already
// waiting for the session absorbs this one (it delivers whatever is pending when it runs). A
// finished drain still holding the id (retained, or archived after failing) makes way instead
// of swallowing the new one.
func (q *Queue) EnqueueDrainMessages(ctx context.Context, sessionID int64) error {
	task, err := NewDrainMessagesTask(DrainMessages{SessionID: sessionID})
	if err != nil {
		return err
	}
	_, err = q.client.EnqueueContext(ctx, task)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		err = q.replaceFinished(ctx, task, LaneDefault, DrainMessagesTaskID(sessionID))
	}
	if err != nil {
		return fmt.Errorf("schedule drain of session %d: %w", sessionID, err)
	}
	return nil
}

// EnqueueSessionEffects queues the effects of one committed transition. A task already holding
// the batch's id absorbs this one while it waits or runs; one that finished (its retries
// exhausted) makes way, so the sweep can queue a batch again.
func (q *Queue) EnqueueSessionEffects(ctx context.Context, sessionID int64, batch string) error {
	task, err := NewSessionEffectsTask(SessionEffects{SessionID: sessionID, Batch: batch})
	if err != nil {
		return err
	}
	_, err = q.client.EnqueueContext(ctx, task)
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		err = q.replaceFinished(ctx, task, LaneDefault, SessionEffectsTaskID(batch))
	}
	if err != nil {
		return fmt.Errorf("queue the effects %s of session %d: %w", batch, sessionID, err)
	}
	return nil
}

// replaceFinished enqueues task again when the task holding its id has finished (completed
// and retained, or archived); a task still waiting or running keeps the id.
func (q *Queue) replaceFinished(ctx context.Context, task *asynq.Task, lane, id string) error {
	info, err := q.taskInfo(lane, id)
	if err != nil {
		return err
	}
	if info == nil {
		_, err = q.client.EnqueueContext(ctx, task) // gone meanwhile
		return ignoreConflict(err)
	}
	if info.State != asynq.TaskStateCompleted && info.State != asynq.TaskStateArchived {
		return nil
	}
	if err := q.inspector.DeleteTask(lane, id); err != nil && !errors.Is(err, asynq.ErrTaskNotFound) {
		return fmt.Errorf("remove finished task %s: %w", id, err)
	}
	_, err = q.client.EnqueueContext(ctx, task)
	return ignoreConflict(err) // another caller got there first: its task absorbs this one
}

func ignoreConflict(err error) error {
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	return err
}

// taskInfo reads a task of the lane; nil, without an error, when Asynq no longer knows it.
func (q *Queue) taskInfo(lane, taskID string) (*asynq.TaskInfo, error) {
	info, err := q.inspector.GetTaskInfo(lane, taskID)
	if errors.Is(err, asynq.ErrTaskNotFound) || errors.Is(err, asynq.ErrQueueNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("inspect task %s: %w", taskID, err)
	}
	return info, nil
}

// TaskQueued reports whether the task is still waiting or running in the lane.
func (q *Queue) TaskQueued(ctx context.Context, lane, taskID string) (bool, error) {
	info, err := q.taskInfo(lane, taskID)
	if info == nil {
		return false, err
	}
	switch info.State {
	case asynq.TaskStatePending, asynq.TaskStateActive, asynq.TaskStateScheduled, asynq.TaskStateRetry, asynq.TaskStateAggregating:
		return true, nil
	}
	return false, nil
}

// Pending lists the ids of the tasks waiting in a lane (newest last), up to limit.
func (q *Queue) Pending(lane string, limit int) ([]*asynq.TaskInfo, error) {
	tasks, err := q.inspector.ListPendingTasks(lane, asynq.PageSize(limit))
	if errors.Is(err, asynq.ErrQueueNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list pending tasks of %s: %w", lane, err)
	}
	return tasks, nil
}
