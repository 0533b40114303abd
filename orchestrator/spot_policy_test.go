package orchestrator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

func TestAGenesisClassOverrideMovesEveryDerivingSessionOnRead(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GenesisClasses: session.ClassOverrides{}})
	ctx := context.Background()
	label := graphtest.Unique(t, "override")
	deriving := graphtest.Session(t, e.Store, func(d *session.Session) { d.Genesis = session.GenesisAPI; d.Title = &label })
	explicit := graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Genesis, d.SchedulingClass, d.Title = session.GenesisAPI, ptr(session.ClassSpot), &label
	})
	classOf := func(s *session.Session) session.Class {
		got, err := e.Ops.Get(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.PriorityClass()
	}
	if classOf(deriving) != session.ClassSpot {
		t.Fatal("api derives spot by default")
	}
	if _, err := e.Ops.SetGenesisClass(ctx, session.GenesisAPI, session.ClassPriority); err != nil {
		t.Fatal(err)
	}
	if classOf(deriving) != session.ClassPriority || classOf(explicit) != session.ClassSpot {
		t.Fatal("promoting api moves the deriving session, never an explicit class")
	}
	page, _, err := e.Ops.Search(ctx, orchestrator.SearchParams{Query: label, PriorityClass: "priority"})
	if err != nil || len(page) != 1 || page[0].ID != deriving.ID {
		t.Fatalf("the class filter follows the override: %v %v", page, err)
	}
	if _, err := e.Ops.ResetGenesisClasses(ctx); err != nil {
		t.Fatal(err)
	}
	if classOf(deriving) != session.ClassSpot {
		t.Fatal("reset returns api to spot")
	}
}

func TestOnlyTheSettableGenesesTakeAnOverride(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GenesisClasses: session.ClassOverrides{}})
	ctx := context.Background()
	for _, g := range []session.Genesis{session.GenesisSlack, session.GenesisSchedule, "made_up"} {
		if _, err := e.Ops.SetGenesisClass(ctx, g, session.ClassSpot); !errors.Is(err, orchestrator.ErrInvalid) {
			t.Fatalf("%s: want a refusal, got %v", g, err)
		}
	}
	if _, err := e.Ops.UpdateSpotPolicy(ctx, settings.SpotChange{MaxConcurrent: ptr(0), FiveHourTargetPct: ptr(101)}); !errors.Is(err, orchestrator.ErrInvalid) {
		t.Fatalf("out-of-range targets and ceiling are refused: %v", err)
	}
	p, err := e.Ops.SpotPolicy(ctx)
	if err != nil || p.MaxConcurrent == 0 || p.FiveHourTargetPct == 101 {
		t.Fatalf("a refused change writes nothing: %+v %v", p, err)
	}
}

func TestAnExplicitGenesisWinsOverTheParentsAndDropsItsClass(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GenesisClasses: session.ClassOverrides{}})
	ctx := context.Background()
	parent := graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Genesis, d.SchedulingClass, d.Precedence = session.GenesisSchedule, ptr(session.ClassSpot), 7
	})
	root := "general-agent"
	for _, tt := range []struct {
		name      string
		p         orchestrator.CreateParams
		genesis   session.Genesis
		inherited bool
	}{
		{"a surface's stamp yields to the parent", orchestrator.CreateParams{Genesis: session.GenesisAPI}, session.GenesisSchedule, true},
		{"a declared genesis stands", orchestrator.CreateParams{ExplicitGenesis: session.GenesisWebUI}, session.GenesisWebUI, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.p.AgentRoot, tt.p.ParentSessionID = &root, &parent.ID
			out, err := e.Ops.Create(ctx, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			s := out.Session
			if s.Genesis != tt.genesis || (s.SchedulingClass != nil) != tt.inherited || s.Precedence != 8 {
				t.Fatalf("genesis %s class %v precedence %d", s.Genesis, s.SchedulingClass, s.Precedence)
			}
		})
	}
}

func TestStartNowResumesAQueuedSessionAndRefusesOneAsleepOnAWallClockWake(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{GatingEnabled: ptr(true), MaxConcurrent: ptr(1)})
	e.quota.set(99, 99) // the gate is shut: Start now goes past it
	ctx := context.Background()
	parked := graphtest.Session(t, e.Store, func(d *session.Session) {
		d.Status = session.StatusNeedsInput
		d.Metadata[session.MetaRuntimeStarted] = true
	})
	if _, _, err := e.Ops.PauseIntoSpotQueue(ctx, parked.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Ops.StartNow(ctx, parked.ID); err != nil || got.Status != session.StatusRunning || got.Metadata[session.MetaSpotQueuedAt] != nil {
		t.Fatalf("a parked session starts now: %v %v", got, err)
	}

	held, task := e.start(t, session.ClassSpot)
	if _, err := e.Ops.ClaimRun(ctx, held.ID, task, "do the work"); !errors.Is(err, orchestrator.ErrSpotHeld) {
		t.Fatalf("want held, got %v", err)
	}
	got, err := e.Ops.StartNow(ctx, held.ID)
	if err != nil || got.Metadata[session.MetaSpotHoldReason] != nil {
		t.Fatalf("Start now lets a held start through: %v %v", got, err)
	}
	if claimed, err := e.Ops.ClaimRun(ctx, held.ID, *got.JobID, "do the work"); err != nil || claimed.Status != session.StatusRunning {
		t.Fatalf("its new task claims it past the shut gate: %v", err)
	}

	sleeper := graphtest.Session(t, e.Store, func(d *session.Session) { d.Status = session.StatusNeedsInput })
	at := e.clk.Now().Add(time.Hour)
	if _, _, err := e.Ops.WakeAt(ctx, orchestrator.WakeAtParams{SessionID: sleeper.ID, WakeAt: at.Format("2006-01-02T15:04:05"),
		Timezone: "UTC", At: at, Prompt: "wake"}); err != nil {
		t.Fatal(err)
	}
	_, err = e.Ops.StartNow(ctx, sleeper.ID)
	var ve *orchestrator.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "asleep on a wall-clock wake") || !strings.Contains(err.Error(), "/triggers") {
		t.Fatalf("Start now refuses a wall-clock sleeper and says why: %v", err)
	}
	if now, _ := e.Ops.Get(ctx, sleeper.ID); now.Status != session.StatusWaiting {
		t.Fatalf("the sleeper sleeps on: %s", now.Status)
	}
}

func TestDemoteToSpotSlotsASessionAtTheHeadOfTheSpotQueue(t *testing.T) {
	e := newSpotEnv(t, settings.SpotChange{})
	ctx := context.Background()
	s := graphtest.Session(t, e.Store, func(d *session.Session) { d.Genesis = session.GenesisWebUI })
	top, err := e.Store.MaxSpotPrecedence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Ops.DemoteToSpot(ctx, s.ID)
	// At the head: past the top by the margin, unless the top is already the highest precedence
	// there is (other tests on the shared database may have put a session there).
	if err != nil || got.PriorityClass() != session.ClassSpot || got.Precedence < min(top+5, session.MaxPrecedence) {
		t.Fatalf("demoted: class %s precedence %d (top was %d) %v", got.PriorityClass(), got.Precedence, top, err)
	}
}
