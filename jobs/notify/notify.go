// Package notify runs the notification jobs on the worker: the debounced needs_input push and
// the delivery of each notification to the push webhook (ZIMMER_PUSH_WEBHOOK_URL) as one JSON
// POST, retried with back-off until the webhook answers 2xx. Delivery runs on its own job, so a
// slow or failing webhook never holds up a lifecycle transition. The webhook's URL may carry a
// secret and is never logged, stored or put in an error.
package notify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// Options configure the notification jobs; zero values take the defaults noted.
type Options struct {
	WebhookURL string // ZIMMER_PUSH_WEBHOOK_URL; "" records notifications without sending them
	PublicURL  string // ZIMMER_PUBLIC_URL: the notifications page a push links to
	Timeout    time.Duration
	// Backoff is the wait before the n-th retry of a failed delivery (10 s doubling, at most
	// 10 minutes: about an hour over tasks.DeliveryRetries).
	Backoff func(n int) time.Duration
	Metrics *metrics.Notifications // nil counts nothing
}

// Jobs handles the notification tasks. It is safe for concurrent use.
type Jobs struct {
	ops    *orchestrator.Service
	log    *slog.Logger
	opt    Options
	client *http.Client
}

// New builds the notification jobs, filling the defaults.
func New(ops *orchestrator.Service, log *slog.Logger, o Options) *Jobs {
	o.Timeout = cmp.Or(o.Timeout, 10*time.Second)
	if o.Backoff == nil {
		o.Backoff = Backoff
	}
	// A redirect could take the POST (and what it carries) somewhere the operator never named.
	client := &http.Client{Timeout: o.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Jobs{ops: ops, log: log, opt: o, client: client}
}

// Backoff is the default wait before the n-th retry of a delivery.
func Backoff(n int) time.Duration {
	return min(10*time.Second<<min(n, 10), 10*time.Minute)
}

// Register wires the tasks into a worker, on the default lane.
func (j *Jobs) Register(w *jobs.Worker) {
	w.Handle(tasks.LaneDefault, tasks.TypeNeedsInputPush, j.HandleNeedsInput)
	w.Handle(tasks.LaneDefault, tasks.TypeDeliverNotification, j.HandleDeliver)
	w.RetryDelay(tasks.TypeDeliverNotification, j.opt.Backoff)
}

// HandleNeedsInput is the debounced needs_input push of one pause.
func (j *Jobs) HandleNeedsInput(ctx context.Context, t *asynq.Task) error {
	var p tasks.NeedsInputPush
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("needs_input push payload: %v: %w", err, asynq.SkipRetry)
	}
	return j.ops.NeedsInputPush(ctx, p.SessionID, p.Batch)
}

// HandleDeliver posts one notification to the webhook. A failed attempt returns its error, so
// Asynq tries again after the back-off; the last one records the notification as failed.
func (j *Jobs) HandleDeliver(ctx context.Context, t *asynq.Task) error {
	var p tasks.DeliverNotification
	if err := json.Unmarshal(t.Payload(), &p); err != nil {
		return fmt.Errorf("delivery payload: %v: %w", err, asynq.SkipRetry)
	}
	push, ok, err := j.ops.PushFor(ctx, p.NotificationID)
	if err != nil {
		return err
	}
	if !ok {
		return j.skip(ctx, push.Notification)
	}
	typ := push.Notification.Type
	if j.opt.WebhookURL == "" {
		j.opt.Metrics.ObserveDelivery(typ, metrics.DeliveryNotConfigured)
		return j.ops.RecordDelivery(ctx, p.NotificationID, session.DeliverySkipped)
	}
	if err := j.post(ctx, push); err != nil {
		retried, _ := asynq.GetRetryCount(ctx)
		limit, _ := asynq.GetMaxRetry(ctx)
		if retried < limit {
			j.opt.Metrics.ObserveDelivery(typ, metrics.DeliveryRetried)
			j.log.Warn("push webhook delivery failed; it is tried again", "notification_id", p.NotificationID, "attempt", retried+1, "err", err)
			return err
		}
		j.opt.Metrics.ObserveDelivery(typ, metrics.DeliveryFailed)
		j.log.Error("push webhook delivery failed for good", "notification_id", p.NotificationID, "attempts", retried+1, "err", err)
		return errors.Join(err, j.ops.RecordDelivery(ctx, p.NotificationID, session.DeliveryFailed))
	}
	j.opt.Metrics.ObserveDelivery(typ, metrics.DeliveryDelivered)
	return j.ops.RecordDelivery(ctx, p.NotificationID, session.DeliveryDelivered)
}

// skip passes over a notification there is nothing to post for: gone (n is nil), already
// delivered or given up on, or stale before it went out (recorded as skipped).
func (j *Jobs) skip(ctx context.Context, n *session.Notification) error {
	if n == nil {
		j.opt.Metrics.ObserveDelivery("unknown", metrics.DeliverySkipped)
		return nil
	}
	j.opt.Metrics.ObserveDelivery(n.Type, metrics.DeliverySkipped)
	if n.Delivery != session.DeliveryPending {
		return nil
	}
	return j.ops.RecordDelivery(ctx, n.ID, session.DeliverySkipped)
}

// Body is the JSON the webhook receives. text is the one line a Slack incoming webhook shows;
// the other fields are for consumers that read JSON (ntfy templates, a pager, a script).
type Body struct {
	Text             string      `json:"text"`
	ID               int64       `json:"id"`
	NotificationType string      `json:"notification_type"`
	Title            string      `json:"title"`
	Body             string      `json:"body"`
	URL              string      `json:"url"`
	SessionID        int64       `json:"session_id"`
	Session          SessionBody `json:"session"`
	CreatedAt        time.Time   `json:"created_at"`
}

// SessionBody is the session a notification is about, as the webhook receives it.
type SessionBody struct {
	ID     int64   `json:"id"`
	Slug   *string `json:"slug"`
	Title  *string `json:"title"`
	Status string  `json:"status"`
}

// IdempotencyHeader carries the notification's own key, so a consumer can drop the rare second
// delivery (a worker that died after the webhook answered but before it recorded so).
const IdempotencyHeader = "Idempotency-Key"

// maxErrorBody is how much of a refusing webhook's answer an error quotes.
const maxErrorBody = 200

func (j *Jobs) post(ctx context.Context, push orchestrator.Push) error {
	n := push.Notification
	link := strings.TrimRight(j.opt.PublicURL, "/") + "/notifications"
	b, err := json.Marshal(Body{Text: push.Title + ": " + push.Body + " " + link, ID: n.ID, NotificationType: n.Type,
		Title: push.Title, Body: push.Body, URL: link, SessionID: n.SessionID, CreatedAt: n.CreatedAt,
		Session: SessionBody{ID: n.Session.ID, Slug: n.Session.Slug, Title: n.Session.Title, Status: string(n.Session.Status)}})
	if err != nil {
		return fmt.Errorf("encode notification %d: %w", n.ID, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.opt.WebhookURL, bytes.NewReader(b))
	if err != nil {
		return errors.New("the push webhook URL does not make a request") // its text would quote the URL
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "zimmer")
	req.Header.Set(IdempotencyHeader, "zimmer-notification-"+strconv.FormatInt(n.ID, 10))
	resp, err := j.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST to the push webhook: %w", withoutURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return fmt.Errorf("the push webhook answered %s: %q", resp.Status, answer)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return nil
}

// withoutURL drops the URL the HTTP client quotes in its errors (it may carry the secret).
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
