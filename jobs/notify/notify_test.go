package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs"
	"github.com/zimmerhq/zimmer/jobs/notify"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/metrics"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// redisDB is this package's own Redis database.
const redisDB = 12

// secret stands for the token a real webhook URL carries (a Slack or ntfy path, a query key).
const secret = "s3cret-hook-token"

const publicURL = "https://zimmer.example"

// logBuffer collects every log line the jobs write.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

type harness struct {
	e    orchestratortest.Env
	m    *metrics.Metrics
	logs *logBuffer
	jobs *notify.Jobs
}

// start runs a worker with the notification jobs on this package's Redis.
func start(t *testing.T, webhook string) harness {
	t.Helper()
	// Another package's mark-all-read and dismiss-all-read would take this test's notifications.
	graphtest.Exclusive(t, "notifications")
	graphtest.FlushRedis(t, redisDB)
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := metrics.New()
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, Log: log, Observer: m})
	j := notify.New(e.Ops, log, notify.Options{WebhookURL: webhook, PublicURL: publicURL, Metrics: m.Notifications,
		Backoff: func(int) time.Duration { return 50 * time.Millisecond }})
	w := jobs.NewWorker(e.Queue, log, 5*time.Second)
	j.Register(w)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return harness{e: e, m: m, logs: logs, jobs: j}
}

// hook is a webhook that refuses its first `failures` requests.
type hook struct {
	mu       sync.Mutex
	failures int
	got      []request
}

type request struct {
	status int
	key    string
	body   notify.Body
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var b notify.Body
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &b)
	status := http.StatusOK
	if len(h.got) < h.failures {
		status = http.StatusBadGateway
	}
	h.got = append(h.got, request{status: status, key: r.Header.Get(notify.IdempotencyHeader), body: b})
	w.WriteHeader(status)
}

func (h *hook) requests() []request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]request(nil), h.got...)
}

// eventually waits for cond, failing the test after a while.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// count reads one counter of a vector.
func count(t *testing.T, vec *prometheus.CounterVec, labels ...string) float64 {
	t.Helper()
	var m dto.Metric
	if err := vec.WithLabelValues(labels...).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func delivery(t *testing.T, h harness, id int64) string {
	t.Helper()
	n, err := h.e.Ops.Notification(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n.Delivery
}

func TestADeliveryThatFailsTwiceIsRetriedAndDeliveredExactlyOnce(t *testing.T) {
	webhook := &hook{failures: 2}
	srv := httptest.NewServer(webhook)
	defer srv.Close()
	h := start(t, srv.URL+"/services/"+secret)
	ctx := context.Background()
	title := "Deploy the parser"
	s := graphtest.Session(t, h.e.Store, func(d *session.Session) { d.Title = &title })
	n, err := h.e.Ops.PushMessage(ctx, s.ID, "Approve the production deploy")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the notification is delivered", func() bool { return delivery(t, h, n.ID) == session.DeliveryDelivered })

	// A redelivered effect queues the same delivery again: it is absorbed, nothing more is posted.
	if err := h.e.Queue.EnqueueNotificationDelivery(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	got := webhook.requests()
	if len(got) != 3 {
		t.Fatalf("want two refused attempts and one delivery, got %d requests", len(got))
	}
	for i, r := range got {
		if want := map[bool]int{true: http.StatusOK, false: http.StatusBadGateway}[i == 2]; r.status != want {
			t.Errorf("request %d answered %d, want %d", i, r.status, want)
		}
		if r.key != fmt.Sprintf("zimmer-notification-%d", n.ID) {
			t.Errorf("request %d carries idempotency key %q", i, r.key)
		}
	}
	b := got[2].body
	want := notify.Body{Text: title + ": Approve the production deploy " + publicURL + "/notifications", ID: n.ID,
		NotificationType: session.NotifyCustomMessage, Title: title, Body: "Approve the production deploy",
		URL: publicURL + "/notifications", SessionID: s.ID}
	if b.Text != want.Text || b.ID != want.ID || b.NotificationType != want.NotificationType || b.Title != want.Title ||
		b.Body != want.Body || b.URL != want.URL || b.SessionID != want.SessionID || b.Session.ID != s.ID || b.Session.Status != string(s.Status) {
		t.Fatalf("the webhook received %+v, want %+v", b, want)
	}
	for outcome, want := range map[string]float64{metrics.DeliveryRetried: 2, metrics.DeliveryDelivered: 1} {
		if got := count(t, h.m.Notifications.Deliveries, session.NotifyCustomMessage, outcome); got != want {
			t.Errorf("deliveries{outcome=%s} = %v, want %v", outcome, got, want)
		}
	}
	if got := count(t, h.m.Notifications.Created, session.NotifyCustomMessage); got != 1 {
		t.Errorf("notifications{type=custom_message} = %v, want 1", got)
	}
	if strings.Contains(h.logs.String(), secret) {
		t.Fatalf("a log line shows the webhook URL:\n%s", h.logs.String())
	}
}

func TestAnUnreachableWebhookNeverShowsItsURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	h := start(t, "http://"+closed+"/services/"+secret+"?token="+secret)
	ctx := context.Background()
	s := graphtest.Session(t, h.e.Store, nil)
	n, err := h.e.Ops.PushMessage(ctx, s.ID, "anyone there?")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := asynq.ParseRedisURI(graphtest.RedisURL(redisDB))
	if err != nil {
		t.Fatal(err)
	}
	inspector := asynq.NewInspector(conn)
	defer inspector.Close()
	var lastErr string
	eventually(t, "a failed attempt is recorded", func() bool {
		info, err := inspector.GetTaskInfo(tasks.LaneDefault, tasks.DeliverNotificationTaskID(n.ID))
		if err == nil {
			lastErr = info.LastErr
		}
		return lastErr != ""
	})
	if !strings.Contains(lastErr, "connection refused") || strings.Contains(lastErr, secret) {
		t.Fatalf("the stored error must say why without the URL: %q", lastErr)
	}
	if !strings.Contains(h.logs.String(), "push webhook delivery failed") || strings.Contains(h.logs.String(), secret) {
		t.Fatalf("the failure is logged, without the URL:\n%s", h.logs.String())
	}
	if got := delivery(t, h, n.ID); got != session.DeliveryPending {
		t.Fatalf("a delivery still being retried stays pending, got %s", got)
	}
}

func TestWithoutAWebhookNotificationsAreRecordedNotSent(t *testing.T) {
	h := start(t, "")
	s := graphtest.Session(t, h.e.Store, nil)
	n, err := h.e.Ops.PushMessage(context.Background(), s.ID, "recorded only")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the delivery is skipped", func() bool { return delivery(t, h, n.ID) == session.DeliverySkipped })
	if got := count(t, h.m.Notifications.Deliveries, session.NotifyCustomMessage, metrics.DeliveryNotConfigured); got != 1 {
		t.Fatalf("deliveries{outcome=not_configured} = %v, want 1", got)
	}
}

func TestTheDebouncedNeedsInputJobPushesASessionStillResting(t *testing.T) {
	webhook := &hook{}
	srv := httptest.NewServer(webhook)
	defer srv.Close()
	h := start(t, srv.URL)
	s := graphtest.Session(t, h.e.Store, func(d *session.Session) {
		d.Status, d.PushNotificationsEnabled = session.StatusNeedsInput, true
		d.Metadata["transition_seq"] = 3
	})
	payload, _ := json.Marshal(tasks.NeedsInputPush{SessionID: s.ID, Batch: fmt.Sprintf("%d-3", s.ID)})
	if err := h.jobs.HandleNeedsInput(context.Background(), asynq.NewTask(tasks.TypeNeedsInputPush, payload)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the needs_input push reaches the webhook", func() bool { return len(webhook.requests()) == 1 })
	if b := webhook.requests()[0].body; b.NotificationType != session.NotifyNeedsInput || b.Body != "Needs your input" || b.SessionID != s.ID {
		t.Fatalf("the webhook received %+v", b)
	}
}

func TestAFailedRunReachesTheWebhookThroughItsTransitionsEffects(t *testing.T) {
	webhook := &hook{}
	srv := httptest.NewServer(webhook)
	defer srv.Close()
	h := start(t, srv.URL)
	ctx := context.Background()
	job := "session-run-under-test"
	s := graphtest.Session(t, h.e.Store, func(d *session.Session) { d.Status, d.RunningJobID = session.StatusRunning, &job })
	failed, err := h.e.Ops.FailRun(ctx, s.ID, job, orchestrator.Failure{Reason: "spawn_failed", Message: "claude was not found on PATH"})
	if err != nil {
		t.Fatal(err)
	}
	// The effects task the transition queued runs on the runner's worker; here it runs in place.
	batch := fmt.Sprintf("%d-%d", s.ID, session.BagInt(failed.Metadata, session.MetaTransitionSeq))
	if err := h.e.Ops.RunEffects(ctx, s.ID, batch); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the failure push reaches the webhook", func() bool { return len(webhook.requests()) == 1 })
	if b := webhook.requests()[0].body; b.NotificationType != session.NotifySessionFailed || b.Body != "claude was not found on PATH" || b.Session.Status != "failed" {
		t.Fatalf("the webhook received %+v", b)
	}
}

func TestANotificationThatWentStaleIsNotSent(t *testing.T) {
	webhook := &hook{}
	srv := httptest.NewServer(webhook)
	defer srv.Close()
	h := start(t, srv.URL)
	ctx := context.Background()
	s := graphtest.Session(t, h.e.Store, nil)
	// Recorded while the worker is busy elsewhere: the session is actioned before its delivery runs.
	n, _, err := h.e.Store.CreateNotification(ctx, graph.NewNotification{SessionID: s.ID, Key: graphtest.Unique(t, "stale"), Type: session.NotifyNeedsInput})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.e.Store.MarkSessionNotificationsStale(ctx, s.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Queue.EnqueueNotificationDelivery(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the delivery is skipped", func() bool { return delivery(t, h, n.ID) == session.DeliverySkipped })
	if got := webhook.requests(); len(got) != 0 {
		t.Fatalf("a stale notification reached the webhook: %+v", got)
	}
	if got := count(t, h.m.Notifications.Deliveries, session.NotifyNeedsInput, metrics.DeliverySkipped); got != 1 {
		t.Fatalf("deliveries{outcome=skipped} = %v, want 1", got)
	}
}
