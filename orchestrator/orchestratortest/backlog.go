package orchestratortest

import (
	"context"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
)

// ExclusiveBacklog gives the calling test the work backlog to itself, emptied and with no live
// session of the backlog job, until it ends: the backlog is one queue for the whole test
// database, and other packages' tests use it too.
func ExclusiveBacklog(t testing.TB, e Env) {
	t.Helper()
	graphtest.Exclusive(t, "backlog")
	ctx := context.Background()
	queue, err := e.Ops.Backlog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range queue {
		if _, err := e.Ops.RemoveBacklogItem(ctx, it.ID, "cleared for a test", "the test harness"); err != nil {
			t.Fatal(err)
		}
	}
	history, err := e.Ops.BacklogHistory(ctx, 10000)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range history {
		if it.StartedBy != session.BacklogStartedByJob || it.SessionID == nil {
			continue
		}
		s, err := e.Ops.Get(ctx, *it.SessionID)
		if err != nil || s.Status == session.StatusArchived || s.Status == session.StatusFailed {
			continue
		}
		if _, err := e.Ops.Archive(ctx, s.ID, orchestrator.ArchiveParams{Force: true, Actor: "the test harness"}); err != nil {
			t.Fatal(err)
		}
	}
}
