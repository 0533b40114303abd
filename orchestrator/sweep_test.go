package orchestrator_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// strandedStart makes a session that waits for a first run pending dispatch whose job no queue
// holds, last changed an hour ago, labelled so only this test's sweep sees it.
func strandedStart(t *testing.T, e orchestratortest.Env, label string, edit func(*session.Session)) *session.Session {
	t.Helper()
	return graphtest.Session(t, e.Store, func(d *session.Session) {
		prompt, lost := "build it", "session-lost-start-"+label
		d.Prompt, d.JobID = &prompt, &lost
		d.Metadata[session.MetaPendingDispatch] = map[string]any{"task_id": lost, "prompt": prompt, "reason": "start", "attempts": 0}
		d.CustomMetadata["sweep_label"] = label
		d.CreatedAt, d.UpdatedAt = time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)
		if edit != nil {
			edit(d)
		}
	})
}

func TestTheSweepQueuesAgainADeliveryWhoseJobWasLost(t *testing.T) {
	e := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	dead := func(context.Context, string) (bool, error) { return false, nil }
	tests := []struct {
		name    string
		edit    func(*session.Session)
		alive   bool
		requeue bool
	}{
		{name: "a lost start is queued again", requeue: true},
		{name: "a lost follow-up to a running session is queued again", requeue: true, edit: func(d *session.Session) {
			d.Status, d.RunningJobID = session.StatusRunning, d.JobID
			d.Metadata[session.MetaPendingDispatch].(map[string]any)["reason"] = "follow_up"
		}},
		{name: "a start still in the queue is left alone", alive: true},
		{name: "a session without a pending dispatch is not a lost delivery",
			edit: func(d *session.Session) { delete(d.Metadata, session.MetaPendingDispatch) }},
		{name: "a session changed within the grace period is left alone",
			edit: func(d *session.Session) { d.UpdatedAt = time.Now() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			label := graphtest.Unique(t, "stranded")
			s := strandedStart(t, e, label, tt.edit)
			alive := func(context.Context, string) (bool, error) { return tt.alive, nil }
			n, err := e.Ops.RedispatchPending(ctx, time.Minute, orchestrator.SweepScope{Text: label}, alive)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := e.Store.GetSession(ctx, s.ID)
			if (n == 1) != tt.requeue || (*got.JobID != *s.JobID) != tt.requeue {
				t.Fatalf("requeued %d, job %s → %s; want requeued=%v", n, *s.JobID, *got.JobID, tt.requeue)
			}
			if !tt.requeue {
				return
			}
			queued, err := e.Queue.TaskQueued(ctx, tasks.LaneAgents, *got.JobID)
			if err != nil || !queued || got.Status != s.Status {
				t.Fatalf("the new job must wait in the agents lane: queued=%v err=%v status=%s", queued, err, got.Status)
			}
			if s.RunningJobID != nil && *got.RunningJobID != *got.JobID {
				t.Fatalf("only the new job may claim the running session: running_job_id %v", *got.RunningJobID)
			}
			if _, err := e.Ops.ClaimRun(ctx, s.ID, *s.JobID, "build it"); !errors.Is(err, orchestrator.ErrNotOwner) {
				t.Fatalf("the lost job, should it turn up, may not claim: %v", err)
			}
			logs, _ := e.Store.Logs(ctx, s.ID, "", 0, 10)
			if len(logs) != 1 || !strings.Contains(logs[0].Content, "was lost before it ran; queued again as "+*got.JobID) {
				t.Fatalf("timeline %v", logs)
			}
		})
	}
	t.Run("after the attempt budget the session fails instead of waiting forever", func(t *testing.T) {
		label := graphtest.Unique(t, "stranded")
		s := strandedStart(t, e, label, func(d *session.Session) {
			d.Metadata[session.MetaPendingDispatch].(map[string]any)["attempts"] = orchestrator.MaxRecoveryAttempts
		})
		if n, err := e.Ops.RedispatchPending(ctx, time.Minute, orchestrator.SweepScope{Text: label}, dead); err != nil || n != 0 {
			t.Fatalf("requeued %d, err %v", n, err)
		}
		got, _ := e.Store.GetSession(ctx, s.ID)
		if got.Status != session.StatusFailed || !strings.HasPrefix(fmt.Sprint(got.Metadata[session.MetaFailureReason]), "Never delivered: the agent job of its start was lost 4 times") {
			t.Fatalf("status %s, failure_reason %v", got.Status, got.Metadata[session.MetaFailureReason])
		}
	})
	t.Run("while the queue cannot be reached no attempt is spent", func(t *testing.T) {
		label := graphtest.Unique(t, "stranded")
		s := strandedStart(t, e, label, nil)
		down := func(context.Context, string) (bool, error) { return false, errors.New("redis: connection refused") }
		if n, err := e.Ops.RedispatchPending(ctx, time.Minute, orchestrator.SweepScope{Text: label}, down); err == nil || n != 0 {
			t.Fatalf("requeued %d, err %v; want the outage reported and nothing done", n, err)
		}
		got, _ := e.Store.GetSession(ctx, s.ID)
		if *got.JobID != *s.JobID || fmt.Sprint(got.Metadata[session.MetaPendingDispatch].(map[string]any)["attempts"]) != "0" {
			t.Fatalf("unchanged: job %s, pending %v", *got.JobID, got.Metadata[session.MetaPendingDispatch])
		}
	})
}
