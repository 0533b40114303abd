package orchestrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// Acknowledged means delivered: what a caller was told is done survives a queue that cannot be
// reached, a caller that hangs up and a claim that fails, and the sweep finishes the job.

var generalAgent = "general-agent"

// outage is a service whose queue is a Redis of the test's own, stopped.
type outage struct {
	orchestratortest.Env
	redis *graphtest.Redis
	scope orchestrator.SweepScope
}

func newOutage(t *testing.T) outage {
	t.Helper()
	r := graphtest.StartRedis(t, "delivery-test-redis-pw")
	o := outage{Env: orchestratortest.New(t, orchestratortest.Options{RedisURL: r.URL}), redis: r,
		scope: orchestrator.SweepScope{Text: graphtest.Unique(t, "delivery")}}
	r.Stop()
	return o
}

// idle is a session resting in needs_input after a turn, in the outage's sweep scope.
func (o outage) idle(t *testing.T) *session.Session {
	t.Helper()
	return graphtest.Session(t, o.Store, func(d *session.Session) {
		d.Status = session.StatusNeedsInput
		d.Metadata[session.MetaRuntimeStarted] = true
		d.CustomMetadata["label"] = o.scope.Text
	})
}

// sweepOnceBack brings the queue back and runs rule 4 with no grace: exactly one delivery is
// queued again, and the queued job carries want.
func (o outage) sweepOnceBack(t *testing.T, id int64, want string) string {
	t.Helper()
	ctx := context.Background()
	o.redis.Start()
	n, err := o.Ops.RedispatchPending(ctx, 0, o.scope, o.Queue.RunAlive)
	if err != nil || n != 1 {
		t.Fatalf("requeued %d, %v; want 1", n, err)
	}
	got, _ := o.Store.GetSession(ctx, id)
	task := *got.JobID
	if p := queuedPrompt(t, o.redis.URL, task); p != want {
		t.Fatalf("job %s carries %q, want %q", task, p, want)
	}
	if n, err := o.Ops.RedispatchPending(ctx, 0, o.scope, o.Queue.RunAlive); err != nil || n != 0 {
		t.Fatalf("a queued job is not queued twice: requeued %d, %v", n, err)
	}
	return task
}

// claimOnce: the job claims the session once and clears its pending dispatch, and after that
// the sweep has nothing to queue again.
func (o outage) claimOnce(t *testing.T, id int64, task, prompt string) {
	t.Helper()
	ctx := context.Background()
	sess, err := o.Ops.ClaimRun(ctx, id, task, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if _, pending := sess.Metadata[session.MetaPendingDispatch]; pending || sess.Status != session.StatusRunning {
		t.Fatalf("claimed: %s, pending dispatch %v", sess.Status, sess.Metadata[session.MetaPendingDispatch])
	}
	if n, err := o.Ops.RedispatchPending(ctx, 0, o.scope, o.Queue.RunAlive); err != nil || n != 0 {
		t.Fatalf("a claimed delivery is not queued again: requeued %d, %v", n, err)
	}
}

func queuedPrompt(t *testing.T, redisURL, taskID string) string {
	t.Helper()
	conn, err := asynq.ParseRedisURI(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	in := asynq.NewInspector(conn)
	defer in.Close()
	info, err := in.GetTaskInfo(tasks.LaneAgents, taskID)
	if err != nil {
		t.Fatalf("job %s: %v", taskID, err)
	}
	var p tasks.RunSession
	if err := json.Unmarshal(info.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p.Prompt
}

func pending(t *testing.T, s *session.Session) map[string]any {
	t.Helper()
	p, ok := s.Metadata[session.MetaPendingDispatch].(map[string]any)
	if !ok {
		t.Fatalf("session %d has no pending dispatch: %v", s.ID, s.Metadata)
	}
	return p
}

func TestACreateWhileTheQueueIsDownIsAcknowledgedAndTheSweepStartsIt(t *testing.T) {
	o := newOutage(t)
	ctx := context.Background()
	prompt := "build it"
	out, err := o.Ops.Create(ctx, orchestrator.CreateParams{AgentRoot: &generalAgent, Prompt: &prompt,
		CustomMetadata: map[string]any{"label": o.scope.Text}})
	if err != nil || out.JobQueued || len(out.Warnings) != 1 {
		t.Fatalf("acknowledged with a warning, not queued: %+v, %v", out, err)
	}
	if p := pending(t, out.Session); p["prompt"] != prompt || p["reason"] != "start" {
		t.Fatalf("pending dispatch %v", p)
	}
	task := o.sweepOnceBack(t, out.Session.ID, prompt)
	o.claimOnce(t, out.Session.ID, task, prompt)
}

func TestAFollowUpWhileTheQueueIsDownIsDeliveredByTheSweep(t *testing.T) {
	o := newOutage(t)
	ctx := context.Background()
	for _, force := range []bool{false, true} {
		s := o.idle(t)
		out, err := o.Ops.FollowUp(ctx, s.ID, orchestrator.FollowUpParams{Prompt: "and the docs", ForceImmediate: force})
		if err != nil || len(out.Warnings) != 1 || out.Session.Status != session.StatusRunning {
			t.Fatalf("force=%v: acknowledged with a warning: %+v, %v", force, out, err)
		}
		if p := pending(t, out.Session); p["prompt"] != "and the docs" || p["task_id"] != *out.Session.RunningJobID {
			t.Fatalf("force=%v: pending dispatch %v", force, p)
		}
		if q, _, _ := o.Ops.ListMessages(ctx, s.ID, orchestrator.MessageListParams{}); len(q) != 0 {
			t.Fatalf("force=%v: the delivered message left the queue: %v", force, q)
		}
		task := o.sweepOnceBack(t, s.ID, "and the docs")
		o.claimOnce(t, s.ID, task, "and the docs")
		o.redis.Stop()
	}
}

func TestAMessageQueuedOnAnIdleSessionIsDrainedByTheSweep(t *testing.T) {
	o := newOutage(t)
	ctx := context.Background()
	s := o.idle(t)
	if _, err := o.Ops.CreateMessage(ctx, s.ID, orchestrator.MessageParams{Content: "next step"}); err != nil {
		t.Fatalf("the message is stored although no drain could be scheduled: %v", err)
	}
	o.redis.Start()
	n, err := o.Ops.DrainIdle(ctx, 0, o.scope)
	if err != nil || n != 1 {
		t.Fatalf("drained %d, %v; want 1", n, err)
	}
	got, _ := o.Store.GetSession(ctx, s.ID)
	if got.Status != session.StatusRunning || queuedPrompt(t, o.redis.URL, *got.RunningJobID) != "next step" {
		t.Fatalf("the message is handed to a job: %s %v", got.Status, got.Metadata)
	}
	if n, err := o.Ops.DrainIdle(ctx, 0, o.scope); err != nil || n != 0 {
		t.Fatalf("delivered once: %d, %v", n, err)
	}
}

func TestAPausedSessionsQueueIsNotDrainedByTheSweep(t *testing.T) {
	o := newOutage(t)
	ctx := context.Background()
	s := o.idle(t)
	if _, err := o.Store.UpdateSession(ctx, s.ID, func(u *session.Session) error {
		u.Metadata[session.MetaPausedBy] = orchestrator.PausedByUser
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Ops.CreateMessage(ctx, s.ID, orchestrator.MessageParams{Content: "later"}); err != nil {
		t.Fatal(err)
	}
	o.redis.Start()
	if n, err := o.Ops.DrainIdle(ctx, 0, o.scope); err != nil || n != 0 {
		t.Fatalf("drained %d, %v; a human's pause holds the queue", n, err)
	}
}

// hangUp is the real queue behind a caller that hangs up the moment its write commits.
type hangUp struct {
	orchestrator.Queue
	cancel context.CancelFunc
}

func (h hangUp) EnqueueRunSession(ctx context.Context, p tasks.RunSession, taskID string) (string, error) {
	h.cancel()
	return h.Queue.EnqueueRunSession(ctx, p, taskID)
}

func TestACallerThatHangsUpAfterTheCommitStillGetsItsJobQueued(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ops := orchestrator.New(orchestrator.Deps{Store: e.Store, Queue: hangUp{e.Queue, cancel}, Catalog: e.Ops.Catalog(), Log: graphtest.Logger()})
	prompt := "build it"
	out, err := ops.Create(ctx, orchestrator.CreateParams{AgentRoot: &generalAgent, Prompt: &prompt})
	if err != nil || !out.JobQueued || len(out.Warnings) != 0 {
		t.Fatalf("queued: %+v, %v", out, err)
	}
	if queued, err := e.Queue.TaskQueued(context.Background(), tasks.LaneAgents, tasks.RunSessionTaskID(out.Session.ID, "start")); err != nil || !queued {
		t.Fatalf("the start job is in the queue: %v %v", queued, err)
	}
}

func TestAReplayedCreateQueuesAStartThatNeverGotItsJob(t *testing.T) {
	o := newOutage(t)
	ctx := context.Background()
	prompt, key := "build it", graphtest.Unique(t, "replay")
	p := orchestrator.CreateParams{AgentRoot: &generalAgent, Prompt: &prompt, IdempotencyKey: &key}
	first, err := o.Ops.Create(ctx, p)
	if err != nil || first.JobQueued {
		t.Fatalf("first: %+v, %v", first, err)
	}
	o.redis.Start()
	again, err := o.Ops.Create(ctx, p)
	if err != nil || !again.Existing || again.Session.ID != first.Session.ID || !again.JobQueued {
		t.Fatalf("replay: %+v, %v", again, err)
	}
	task := tasks.RunSessionTaskID(first.Session.ID, "start")
	if got := queuedPrompt(t, o.redis.URL, task); got != prompt {
		t.Fatalf("the start job carries %q", got)
	}
	if third, err := o.Ops.Create(ctx, p); err != nil || !third.JobQueued {
		t.Fatalf("a replay of a queued start queues nothing more: %+v, %v", third, err)
	}
}

func TestADrainWhoseLastTaskFinishedStillDrains(t *testing.T) {
	for _, state := range []string{"archived", "completed"} {
		t.Run(state, func(t *testing.T) {
			r := graphtest.StartRedis(t, "drain-test-redis-pw")
			e := orchestratortest.New(t, orchestratortest.Options{RedisURL: r.URL})
			ctx := context.Background()
			s := graphtest.Session(t, e.Store, func(d *session.Session) { d.Status = session.StatusNeedsInput })
			conn, _ := asynq.ParseRedisURI(r.URL)
			client, in := asynq.NewClient(conn), asynq.NewInspector(conn)
			defer client.Close()
			defer in.Close()
			id := tasks.DrainMessagesTaskID(s.ID)
			// The previous drain's task still holds the id: archived after failing, or
			// completed and retained.
			task, _ := tasks.NewDrainMessagesTask(tasks.DrainMessages{SessionID: s.ID})
			if state == "archived" {
				if _, err := client.Enqueue(task); err != nil {
					t.Fatal(err)
				}
				if err := in.ArchiveTask(tasks.LaneDefault, id); err != nil {
					t.Fatal(err)
				}
			} else {
				finishOne(t, r.URL, s.ID)
			}
			if info, err := in.GetTaskInfo(tasks.LaneDefault, id); err != nil || info.State.String() != state {
				t.Fatalf("the previous drain is %v (%v), want %s", info, err, state)
			}
			if _, err := e.Ops.CreateMessage(ctx, s.ID, orchestrator.MessageParams{Content: "next"}); err != nil {
				t.Fatal(err)
			}
			info, err := in.GetTaskInfo(tasks.LaneDefault, id)
			if err != nil || info.State != asynq.TaskStateScheduled {
				t.Fatalf("a new drain is scheduled: %v %v", info, err)
			}
		})
	}
}

// finishOne runs one drain task of the session to completion on a worker that retains it.
func finishOne(t *testing.T, url string, id int64) {
	t.Helper()
	conn, _ := asynq.ParseRedisURI(url)
	client := asynq.NewClient(conn)
	defer client.Close()
	payload, _ := json.Marshal(tasks.DrainMessages{SessionID: id})
	task := asynq.NewTask(tasks.TypeDrainMessages, payload, asynq.Queue(tasks.LaneDefault),
		asynq.TaskID(tasks.DrainMessagesTaskID(id)), asynq.Retention(time.Hour))
	if _, err := client.Enqueue(task); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	srv := asynq.NewServer(conn, asynq.Config{Queues: map[string]int{tasks.LaneDefault: 1}, TaskCheckInterval: 50 * time.Millisecond,
		Logger: nopLogger{}})
	mux := asynq.NewServeMux()
	mux.HandleFunc(tasks.TypeDrainMessages, func(context.Context, *asynq.Task) error { close(done); return nil })
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the drain did not run")
	}
	time.Sleep(200 * time.Millisecond) // let the server mark it completed
	srv.Shutdown()
}

type nopLogger struct{}

func (nopLogger) Debug(...any) {}
func (nopLogger) Info(...any)  {}
func (nopLogger) Warn(...any)  {}
func (nopLogger) Error(...any) {}
func (nopLogger) Fatal(...any) {}

func TestAClaimThatFailsLeavesTheFollowUpForTheSweep(t *testing.T) {
	o := newOutage(t)
	o.redis.Start()
	ctx := context.Background()
	s := o.idle(t)
	out, err := o.Ops.FollowUp(ctx, s.ID, orchestrator.FollowUpParams{Prompt: "and the docs"})
	if err != nil || len(out.Warnings) != 0 {
		t.Fatalf("follow-up: %+v, %v", out, err)
	}
	task := *out.Session.RunningJobID

	// The job's claim fails on the store (here: a connection already closed); the runner
	// returns the error and Asynq, which never retries an agent run, archives the task.
	broken, err := graph.Open(ctx, graphtest.Neo4jOptions(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = broken.Close(ctx)
	failing := orchestrator.New(orchestrator.Deps{Store: broken, Queue: o.Queue, Catalog: o.Ops.Catalog(), Log: graphtest.Logger()})
	if _, err := failing.ClaimRun(ctx, s.ID, task, "and the docs"); err == nil || errors.Is(err, orchestrator.ErrNotOwner) {
		t.Fatalf("the claim must fail on the store: %v", err)
	}
	conn, _ := asynq.ParseRedisURI(o.redis.URL)
	in := asynq.NewInspector(conn)
	defer in.Close()
	if err := in.ArchiveTask(tasks.LaneAgents, task); err != nil {
		t.Fatal(err)
	}

	n, err := o.Ops.RedispatchPending(ctx, 0, o.scope, o.Queue.RunAlive)
	if err != nil || n != 1 {
		t.Fatalf("requeued %d, %v", n, err)
	}
	got, _ := o.Store.GetSession(ctx, s.ID)
	if queuedPrompt(t, o.redis.URL, *got.RunningJobID) != "and the docs" {
		t.Fatal("the follow-up itself is queued again, not a recovery nudge")
	}
	o.claimOnce(t, s.ID, *got.RunningJobID, "and the docs")
}

// A hand-off the session was paused out of before its job claimed it does not hold the queue
// back: its job can no longer claim the session, so the drain after the pause delivers.
func TestAPendingDispatchOvertakenByAPauseDoesNotBlockTheDrain(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Status = session.StatusNeedsInput
		d.Metadata[session.MetaPendingDispatch] = map[string]any{"task_id": "session-lost-follow-up", "prompt": "old", "reason": "follow_up"}
		d.Metadata[session.MetaPausedBy] = orchestrator.PausedByUser
	})
	if _, err := e.Ops.CreateMessage(ctx, s.ID, orchestrator.MessageParams{Content: "next"}); err != nil {
		t.Fatal(err)
	}
	delivered, err := e.Ops.DrainQueue(ctx, s.ID)
	if err != nil || !delivered {
		t.Fatalf("delivered %v, %v", delivered, err)
	}
	got, _ := e.Store.GetSession(ctx, s.ID)
	if pending(t, got)["prompt"] != "next" || got.Status != session.StatusRunning {
		t.Fatalf("the queued message is the delivery now: %s %v", got.Status, got.Metadata)
	}
}
