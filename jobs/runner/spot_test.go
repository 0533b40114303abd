package runner_test

import (
	"context"
	"testing"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/session"
)

// The spot scheduler fills the agents lane's free slots and no more: with the lane full, a
// parked session waits for the next tick that finds room.
func TestTheSpotSchedulerResumesParkedSessionsIntoFreeAgentSlotsOnly(t *testing.T) {
	redis := graphtest.StartRedis(t, "spot-test-redis-pw") // the lane's count must be this test's alone
	e := private(t, envOptions{redisURL: redis.URL, noWork: true})
	ctx := context.Background()
	slots := tasks.LaneConcurrency[tasks.LaneAgents]
	var parked []int64
	for range slots + 2 {
		s := graphtest.Session(t, e.store, func(d *session.Session) {
			d.Status = session.StatusNeedsInput
			d.Metadata[session.MetaRuntimeStarted] = true
			d.CustomMetadata["sweep_scope"] = e.dataDir
		})
		if _, _, err := e.ops.PauseIntoSpotQueue(ctx, s.ID, false); err != nil {
			t.Fatal(err)
		}
		parked = append(parked, s.ID)
	}
	running := func() int {
		n := 0
		for _, id := range parked {
			s, err := e.ops.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if s.Status == session.StatusRunning {
				n++
			}
		}
		return n
	}
	if err := e.runner.HandleResumeSpot(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := running(); got != slots {
		t.Fatalf("a tick resumes as many as the lane has free slots (%d), resumed %d", slots, got)
	}
	if err := e.runner.HandleResumeSpot(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := running(); got != slots {
		t.Fatalf("with every agent slot taken nothing more is resumed, got %d running", got)
	}
}
