package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// TypeNeedsInputPush is the debounced needs_input push of one pause: it runs NeedsInputDebounce
// after the pause and records (and delivers) a notification only if the session still rests in
// that same needs_input.
const TypeNeedsInputPush = "notification:needs_input"

// NeedsInputDebounce is how long a session must rest in needs_input before the humans are told:
// a turn boundary that resumes at once (a queued message, a wake) is not worth a push.
const NeedsInputDebounce = 60 * time.Second

// NeedsInputPush is the payload of TypeNeedsInputPush: the session and the batch of the pause.
type NeedsInputPush struct {
	SessionID int64  `json:"session_id"`
	Batch     string `json:"batch"`
}

// NeedsInputPushTaskID is one id per pause, so a redelivered effect schedules it once.
func NeedsInputPushTaskID(batch string) string { return "notify-needs-input-" + batch }

// TypeDeliverNotification posts one notification to the push webhook.
const TypeDeliverNotification = "notification:deliver"

// DeliverNotification is the payload of TypeDeliverNotification.
type DeliverNotification struct {
	NotificationID int64 `json:"notification_id"`
}

// DeliverNotificationTaskID is one id per notification.
func DeliverNotificationTaskID(id int64) string {
	return "notification-" + strconv.FormatInt(id, 10) + "-deliver"
}

// DeliveryRetries bounds the webhook's retries (with back-off, about an hour in all);
// deliveryRetention keeps a finished delivery's id taken, so a notification queued for delivery
// again (a redelivered effect) is refused instead of posted twice.
const (
	DeliveryRetries   = 10
	deliveryRetention = 24 * time.Hour
)

// EnqueueNeedsInputPush schedules the debounced needs_input push of a pause. The same batch
// queued again is absorbed by the task already holding its id.
func (q *Queue) EnqueueNeedsInputPush(ctx context.Context, sessionID int64, batch string) error {
	b, err := json.Marshal(NeedsInputPush{SessionID: sessionID, Batch: batch})
	if err != nil {
		return fmt.Errorf("encode needs_input push payload: %w", err)
	}
	task := asynq.NewTask(TypeNeedsInputPush, b, asynq.Queue(LaneDefault), asynq.TaskID(NeedsInputPushTaskID(batch)),
		asynq.ProcessIn(NeedsInputDebounce), asynq.MaxRetry(DeliveryRetries))
	if _, err := q.client.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("schedule the needs_input push of session %d: %w", sessionID, err)
	}
	return nil
}

// EnqueueNotificationDelivery queues the webhook delivery of a notification. The same
// notification queued again is absorbed: by its task while it waits or runs, and for a day after
// it finished.
func (q *Queue) EnqueueNotificationDelivery(ctx context.Context, notificationID int64) error {
	b, err := json.Marshal(DeliverNotification{NotificationID: notificationID})
	if err != nil {
		return fmt.Errorf("encode delivery payload: %w", err)
	}
	task := asynq.NewTask(TypeDeliverNotification, b, asynq.Queue(LaneDefault), asynq.TaskID(DeliverNotificationTaskID(notificationID)),
		asynq.MaxRetry(DeliveryRetries), asynq.Retention(deliveryRetention))
	if _, err := q.client.EnqueueContext(ctx, task); err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
		return fmt.Errorf("queue the delivery of notification %d: %w", notificationID, err)
	}
	return nil
}

// TypeResumeSpot resumes sessions parked in the spot queue while the agents lane has room.
const TypeResumeSpot = "sessions:resume_spot"

// FreeSlots is how many more tasks the lane can start now: its concurrency less what is already
// running or waiting in it (never below zero).
func (q *Queue) FreeSlots(lane string) (int, error) {
	// GetQueueInfo's not-found error is not asynq.ErrQueueNotFound, so ask first whether the lane
	// exists: a lane nothing was ever queued on is all free.
	known, err := q.inspector.Queues()
	if err != nil {
		return 0, fmt.Errorf("list lanes: %w", err)
	}
	if !slices.Contains(known, lane) {
		return LaneConcurrency[lane], nil
	}
	info, err := q.inspector.GetQueueInfo(lane)
	if err != nil {
		return 0, fmt.Errorf("inspect lane %s: %w", lane, err)
	}
	return max(LaneConcurrency[lane]-info.Active-info.Pending, 0), nil
}
