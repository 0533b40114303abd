package orchestrator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/graph/graphtest"
	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/roster"
	"github.com/zimmerhq/zimmer/session"
)

// say records words a seeded human said to a session, minutes after a fixed moment.
func say(t *testing.T, store *graph.Store, sessionID int64, content string, minutes int) {
	t.Helper()
	_, err := store.RecordHumanMessage(context.Background(), roster.Message{SessionID: sessionID, Author: "tadasant",
		Channel: roster.ChannelWebUI, Content: content, EntryPoint: "web_ui.follow_up",
		OccurredAt: time.Date(2026, 8, 2, 4, 0, 0, 0, time.UTC).Add(time.Duration(minutes) * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
}

// origins renders a record's entries as "content:origin:authored_in", chronological.
func origins(rec provenance.Record) string {
	var out []string
	for _, e := range rec.Entries {
		out = append(out, e.Content+":"+string(e.Origin)+":"+e.AuthoredIn())
	}
	return strings.Join(out, " | ")
}

func TestProvenanceGathersAcrossSpawnAndUncleEdges(t *testing.T) {
	ops, store := setup(t)
	ctx := context.Background()
	// R spawned W and S; U spawned UC; U queued W, so U is W's uncle.
	f := build(t, store, "R U", [2]string{"R", "W"}, [2]string{"R", "S"}, [2]string{"U", "UC"})
	if out := uncle(t, ops, f, "U", "W"); out != orchestrator.UncleCreated {
		t.Fatalf("uncle edge: %s", out)
	}
	say(t, store, f["R"], "router brief", 1)
	say(t, store, f["UC"], "uncle's child", 2)
	say(t, store, f["W"], "worker instruction", 3)
	tests := []struct {
		name, viewer, want string
		here, elsewhere    int
	}{
		{"a worker sees its router and its uncle's hierarchy as elsewhere and its own as here", "W",
			"router brief:elsewhere:session #{R} — — · Session {R} | uncle's child:elsewhere:session #{UC} — — · Session {UC} | worker instruction:here:this session (#{W})", 1, 2},
		{"the uncle's hierarchy reaches down to the worker it queued, not up to the worker's router", "UC",
			"uncle's child:here:this session (#{UC}) | worker instruction:elsewhere:session #{W} — — · Session {W}", 1, 1},
		{"a sibling nobody spoke to has only elsewhere entries, and not the uncle's", "S",
			"router brief:elsewhere:session #{R} — — · Session {R} | worker instruction:elsewhere:session #{W} — — · Session {W}", 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := ops.Provenance(ctx, f[tt.viewer])
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			for name := range f {
				want = strings.ReplaceAll(want, "{"+name+"}", f.s(name))
			}
			if got := origins(rec); got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			if rec.HereCount() != tt.here || rec.ElsewhereCount() != tt.elsewhere || rec.HumanMessageHere() != (tt.here > 0) {
				t.Fatalf("counts %d/%d here=%v", rec.HereCount(), rec.ElsewhereCount(), rec.HumanMessageHere())
			}
			if rec.Session.ID != f[tt.viewer] || rec.Entries[0].DisplayName != "Tadas" || rec.Entries[0].Notes == "" {
				t.Fatalf("session %d, first entry %+v", rec.Session.ID, rec.Entries[0])
			}
		})
	}
}

func TestProvenanceReportsAnAdminNamingNoRowAsACaptureGap(t *testing.T) {
	store := graphtest.Store(t)
	ctx := context.Background()
	web := graphtest.Session(t, store, func(d *session.Session) { d.Genesis = session.GenesisWebUI })
	api := graphtest.Session(t, store, nil)
	tests := []struct {
		name, admin string
		sessionID   int64
		gaps        int
	}{
		{"a web UI session with a resolving admin is covered", "tadasant", web.ID, 0},
		{"a web UI session with an admin naming no row is a gap", graphtest.Unique(t, "nobody"), web.ID, 1},
		{"an API session is never a gap", graphtest.Unique(t, "nobody"), api.ID, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops := orchestrator.New(orchestrator.Deps{Store: store, Log: graphtest.Logger(), AdminUser: tt.admin})
			rec, err := ops.Provenance(ctx, tt.sessionID)
			if err != nil {
				t.Fatal(err)
			}
			var webGaps int
			for _, g := range rec.Gaps {
				if g.Channel == roster.ChannelWebUI {
					webGaps++
					if !strings.Contains(g.Bullet(), "currently `"+tt.admin+"`") {
						t.Fatalf("bullet %s", g.Bullet())
					}
				}
			}
			if webGaps != tt.gaps {
				t.Fatalf("web UI gaps %d, want %d: %+v", webGaps, tt.gaps, rec.Gaps)
			}
		})
	}
}

func TestProvenanceOfAnUnknownSessionIsNotFound(t *testing.T) {
	ops, _ := setup(t)
	if _, err := ops.Provenance(context.Background(), 999999999999); !errors.Is(err, orchestrator.ErrNotFound) {
		t.Fatalf("got %v", err)
	}
}
