package orchestrator_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// Every lifecycle transition's after-commit effects run once each, in the table's order, from the
// record the transition wrote: a redelivered task resumes after the last effect done, and a batch
// whose task was never queued is queued by the sweep.

// allEffects is every effect the transition table names.
func allEffects() []session.Effect {
	var out []session.Effect
	for _, ev := range session.Events {
		for _, from := range session.Statuses {
			_, effs, _ := session.Transition(from, ev, session.Guard{HasGitRoot: true, BlockedOnElicitation: true})
			for _, e := range effs {
				if !slices.Contains(out, e) {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// recorder notes the effects that ran, per session.
type recorder struct {
	ran  map[int64][]session.Effect
	fail func(id int64, e session.Effect) error
}

func record(env orchestratortest.Env) *recorder {
	r := &recorder{ran: map[int64][]session.Effect{}}
	env.Ops.RecordEffects(allEffects(), func(_ context.Context, id int64, _ string, e session.Effect) error {
		if r.fail != nil {
			if err := r.fail(id, e); err != nil {
				return err
			}
		}
		r.ran[id] = append(r.ran[id], e)
		return nil
	})
	return r
}

// batches are the ids of the session's recorded effect batches.
func batches(t *testing.T, env orchestratortest.Env, id int64) []string {
	t.Helper()
	sess, err := env.Store.GetSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := sess.Metadata[session.MetaPendingEffects].([]any)
	var ids []string
	for _, b := range list {
		ids = append(ids, b.(map[string]any)["id"].(string))
	}
	return ids
}

func sessionIn(t *testing.T, env orchestratortest.Env, status session.Status, scope string) *session.Session {
	t.Helper()
	return graphtest.Session(t, env.Store, func(d *session.Session) {
		d.Status, d.GitRoot = status, "https://example.invalid/repo.git"
		d.Metadata[session.MetaBlockedOnElicitation] = true
		d.CustomMetadata["label"] = scope
	})
}

func TestEveryTransitionRunsItsDeferredEffectsOnceEachInOrder(t *testing.T) {
	t.Parallel()
	env := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	rec := record(env)
	ctx := context.Background()
	for _, ev := range session.Events {
		for _, from := range session.Statuses {
			t.Run(string(ev)+" from "+string(from), func(t *testing.T) {
				sess := sessionIn(t, env, from, "effects")
				_, effs, refused := session.Transition(from, ev, session.Guard{HasGitRoot: true, BlockedOnElicitation: true})
				_, err := env.Ops.ApplyEvent(ctx, sess.ID, ev)
				if refused != nil {
					if err == nil {
						t.Fatalf("a refused transition was applied")
					}
					if got := batches(t, env, sess.ID); len(got) != 0 {
						t.Fatalf("a refused transition recorded effects %v", got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := session.DeferredEffects(effs)
				ids := batches(t, env, sess.ID)
				if len(want) == 0 {
					if len(ids) != 0 {
						t.Fatalf("no deferred effects, but batches %v were recorded", ids)
					}
					return
				}
				if len(ids) != 1 {
					t.Fatalf("batches %v, want one", ids)
				}
				for range 2 { // the second run is a redelivery: nothing runs again
					if err := env.Ops.RunEffects(ctx, sess.ID, ids[0]); err != nil {
						t.Fatal(err)
					}
				}
				if got := rec.ran[sess.ID]; !slices.Equal(got, want) {
					t.Fatalf("ran %v, want %v", got, want)
				}
				if left := batches(t, env, sess.ID); len(left) != 0 {
					t.Fatalf("batches left after running: %v", left)
				}
			})
		}
	}
}

func TestAnInTransactionEffectIsNeverDeferred(t *testing.T) {
	t.Parallel()
	for _, e := range []session.Effect{session.EffectClearRunningJob, session.EffectSetArchivedAt, session.EffectRetireQueued,
		session.EffectClearResumeMarkers, session.EffectExecutePendingSleep, session.EffectClearTrashAfter} {
		if e.Deferred() {
			t.Errorf("%s is bookkeeping on the session itself, done inside the transition", e)
		}
	}
}

func TestARedeliveredEffectsTaskResumesAfterTheLastEffectDone(t *testing.T) {
	t.Parallel()
	env := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	rec := record(env)
	ctx := context.Background()
	sess := sessionIn(t, env, session.StatusRunning, "effects-redelivery")
	if _, err := env.Ops.ApplyEvent(ctx, sess.ID, session.EventArchive); err != nil {
		t.Fatal(err)
	}
	_, effs, _ := session.Transition(session.StatusRunning, session.EventArchive, session.Guard{})
	want := session.DeferredEffects(effs)
	failed := false
	rec.fail = func(_ int64, e session.Effect) error {
		if e == want[1] && !failed {
			failed = true
			return errors.New("the outside world is down")
		}
		return nil
	}
	batch := batches(t, env, sess.ID)[0]
	if err := env.Ops.RunEffects(ctx, sess.ID, batch); err == nil {
		t.Fatal("a failing effect must fail the task, so it is retried")
	}
	if got := rec.ran[sess.ID]; !slices.Equal(got, want[:1]) {
		t.Fatalf("before the retry ran %v, want %v", got, want[:1])
	}
	if err := env.Ops.RunEffects(ctx, sess.ID, batch); err != nil {
		t.Fatal(err)
	}
	if got := rec.ran[sess.ID]; !slices.Equal(got, want) {
		t.Fatalf("after the retry ran %v, want each of %v once", got, want)
	}
}

func TestATransitionQueuesItsEffectsTaskUnderTheBatchID(t *testing.T) {
	t.Parallel()
	env := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	sess := sessionIn(t, env, session.StatusRunning, "effects-queued")
	if _, err := env.Ops.ApplyEvent(ctx, sess.ID, session.EventPause); err != nil {
		t.Fatal(err)
	}
	ids := batches(t, env, sess.ID)
	if len(ids) != 1 {
		t.Fatalf("batches %v, want one", ids)
	}
	ok, err := env.Queue.TaskQueued(ctx, tasks.LaneDefault, tasks.SessionEffectsTaskID(ids[0]))
	if err != nil || !ok {
		t.Fatalf("the effects task of %s is not queued: %v, %v", ids[0], ok, err)
	}
}

func TestEffectsNotQueuedDuringAnOutageAreQueuedByTheSweep(t *testing.T) {
	t.Parallel()
	o := newOutage(t)
	ctx := context.Background()
	sess := sessionIn(t, o.Env, session.StatusNeedsInput, o.scope.Text)
	if _, err := o.Ops.ApplyEvent(ctx, sess.ID, session.EventArchive); err != nil {
		t.Fatalf("the transition stands while the queue is down: %v", err)
	}
	ids := batches(t, o.Env, sess.ID)
	if len(ids) != 1 {
		t.Fatalf("batches %v, want one", ids)
	}
	alive := func(ctx context.Context, b string) (bool, error) {
		return o.Queue.TaskQueued(ctx, tasks.LaneDefault, tasks.SessionEffectsTaskID(b))
	}
	if n, err := o.Ops.RedispatchEffects(ctx, 0, o.scope, alive); err == nil || n != 0 {
		t.Fatalf("a sweep that cannot reach the queue queues nothing and says so: %d, %v", n, err)
	}
	o.redis.Start()
	if n, err := o.Ops.RedispatchEffects(ctx, 0, o.scope, alive); err != nil || n != 1 {
		t.Fatalf("queued again %d, %v; want 1", n, err)
	}
	if n, err := o.Ops.RedispatchEffects(ctx, 0, o.scope, alive); err != nil || n != 0 {
		t.Fatalf("a queued batch is not queued twice: %d, %v", n, err)
	}
}

func TestAPauseWithAQueuedMessageSchedulesItsDrainThroughTheEffect(t *testing.T) {
	t.Parallel()
	env := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB})
	ctx := context.Background()
	sess := sessionIn(t, env, session.StatusRunning, "effects-drain")
	if _, err := env.Ops.CreateMessage(ctx, sess.ID, orchestrator.MessageParams{Content: "next"}); err != nil {
		t.Fatal(err)
	}
	drain := tasks.DrainMessagesTaskID(sess.ID)
	if ok, _ := env.Queue.TaskQueued(ctx, tasks.LaneDefault, drain); ok {
		t.Fatal("a message behind a running turn waits for the turn's end, not a drain")
	}
	if _, err := env.Ops.Pause(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if err := env.Ops.RunEffects(ctx, sess.ID, batches(t, env, sess.ID)[0]); err != nil {
		t.Fatal(err)
	}
	if ok, err := env.Queue.TaskQueued(ctx, tasks.LaneDefault, drain); err != nil || !ok {
		t.Fatalf("the pause's drain effect scheduled no drain: %v, %v", ok, err)
	}
}
