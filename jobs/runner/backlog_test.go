package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// This deployment's catalog has no zimmer-orchestrator root, so the job cannot start the item:
// it says why, and the item is back on top of the backlog rather than lost in "starting".
func TestTheBacklogJobPutsBackAnItemItCannotStart(t *testing.T) {
	e := shared(t)
	orchestratortest.ExclusiveBacklog(t, orchestratortest.Env{Ops: e.ops, Store: e.store})
	ctx := context.Background()
	it, err := e.ops.AppendBacklogItem(ctx, orchestrator.BacklogAppend{IssueURL: "https://github.com/x/y/issues/5", AddedBy: "test"})
	if err != nil {
		t.Fatal(err)
	}
	err = e.runner.HandleBacklog(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "zimmer-orchestrator") {
		t.Fatalf("the job reports the failed start: %v", err)
	}
	queue, err := e.ops.Backlog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(queue) != 1 || queue[0].ID != it.ID || queue[0].Rank != 1 || queue[0].Status != session.BacklogQueued || queue[0].StartedBy != "" {
		t.Fatalf("the item is back on top: %+v", queue)
	}
}
