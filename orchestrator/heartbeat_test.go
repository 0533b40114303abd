package orchestrator_test

import (
	"context"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/orchestrator/orchestratortest"
	"github.com/zimmerhq/zimmer/session"
)

// A heartbeat nudges an idle session each interval and only stamps the beat of a session that
// is busy, asleep, failed or has a message waiting; an archived session's heartbeat turns off.
func TestTheHeartbeatNudgesOnlyIdleSessionsWhoseBeatIsDue(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	env := orchestratortest.New(t, orchestratortest.Options{RedisDB: redisDB, Now: func() time.Time { return now }})
	ctx := context.Background()
	scope := orchestrator.SweepScope{Text: graphtest.Unique(t, "heartbeat")}
	recent := now.Add(-10 * time.Second)
	cases := []struct {
		name    string
		status  session.Status
		on      bool
		last    *time.Time
		queued  bool
		nudged  bool
		stamped bool
		off     bool
	}{
		{name: "idle and due is nudged", status: session.StatusNeedsInput, on: true, nudged: true, stamped: true},
		{name: "idle but beaten recently is left alone", status: session.StatusNeedsInput, on: true, last: &recent},
		{name: "idle with a queued message is only stamped", status: session.StatusNeedsInput, on: true, queued: true, stamped: true},
		{name: "running is only stamped", status: session.StatusRunning, on: true, stamped: true},
		{name: "asleep is only stamped", status: session.StatusWaiting, on: true, stamped: true},
		{name: "failed is only stamped", status: session.StatusFailed, on: true, stamped: true},
		{name: "archived is turned off", status: session.StatusArchived, on: true, off: true},
		{name: "off is left alone", status: session.StatusNeedsInput},
	}
	ids := make([]int64, len(cases))
	for i, c := range cases {
		s := graphtest.Session(t, env.Store, func(d *session.Session) {
			d.Status, d.HeartbeatEnabled, d.HeartbeatInterval, d.HeartbeatLastBeatAt = c.status, c.on, 60, c.last
			d.GitRoot = "https://example.invalid/repo.git"
			d.CustomMetadata["label"] = scope.Text
		})
		ids[i] = s.ID
		if c.queued {
			if _, err := env.Ops.CreateMessage(ctx, s.ID, orchestrator.MessageParams{Content: "waiting for you"}); err != nil {
				t.Fatal(err)
			}
			// The drain that message scheduled has not run: the session still rests.
		}
	}
	hb, err := env.Ops.Heartbeat(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if hb.Nudged != 1 || hb.Disabled != 1 || hb.Stamped != 4 {
		t.Fatalf("sweep %+v; want 1 nudged, 4 stamped, 1 turned off", hb)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := env.Store.GetSession(ctx, ids[i])
			if err != nil {
				t.Fatal(err)
			}
			p, nudged := s.Metadata[session.MetaPendingDispatch].(map[string]any)
			if nudged != c.nudged || (nudged && p["prompt"] != orchestrator.HeartbeatPrompt) {
				t.Fatalf("nudged %v (%v), want %v", nudged, p, c.nudged)
			}
			stamped := s.HeartbeatLastBeatAt != nil && s.HeartbeatLastBeatAt.Equal(now)
			if stamped != c.stamped {
				t.Fatalf("beat %v, want stamped %v", s.HeartbeatLastBeatAt, c.stamped)
			}
			if c.off && s.HeartbeatEnabled {
				t.Fatal("an archived session's heartbeat is turned off")
			}
		})
	}
	if hb, err := env.Ops.Heartbeat(ctx, scope); err != nil || hb.Nudged+hb.Stamped+hb.Disabled != 0 {
		t.Fatalf("a second sweep in the same instant finds nothing due: %+v %v", hb, err)
	}
}
